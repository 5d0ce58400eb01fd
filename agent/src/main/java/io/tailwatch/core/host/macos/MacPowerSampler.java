package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PowerExactness;
import io.tailwatch.metrics.AttrValues.RailSource;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Power and energy per rail from one long-lived IOReport subscription to the "Energy Model" group.
 * The first run only takes the baseline sample and exports nothing. When no known rail is left in
 * a delta (channels renamed by a macOS update) the sampler fails rather than reporting 0 W. Its points
 * carry {@code tailwatch.power.rail.source=energy_model} (exact); the rails it finds frozen are left to
 * {@link MacClpcPowerSampler} through the shared {@link RailChoice}.
 */
public final class MacPowerSampler extends IOReportSampler {
    private final EnergyModel model = new EnergyModel();
    private final RailChoice choice;

    public MacPowerSampler(Lazy<IOReportSource> source) {
        this(source, new RailChoice());
    }

    /** @param choice shared with the CLPC sampler, which stands in for the rails this one finds frozen */
    public MacPowerSampler(Lazy<IOReportSource> source, RailChoice choice) {
        super(source);
        this.choice = choice;
    }

    @Override
    public String name() {
        return "power";
    }

    @Override
    public String probeId() {
        return MacProbes.IOREPORT_ENERGY;
    }

    @Override
    public List<Point> sample() throws IOException {
        IOReportDelta delta = nextDelta();
        if (delta == null) {
            return List.of();
        }
        EnergyModel.Reading r = model.apply(delta);
        if (r.railsInDelta() == 0) {
            throw new IOException("no known Energy Model rail among " + delta.channels().size() + " channels"
                    + (r.unknownUnitsTotal() > 0 ? " (" + r.unknownUnitsTotal() + " with unknown units)" : ""));
        }
        choice.energyModel(r.states(), r.watts(), delta.seconds());
        List<Point> out = new ArrayList<>();
        r.watts().forEach((rail, w) -> {
            if (!choice.frozenByEvidence(rail)) {
                out.add(HostMetrics.power(rail, w, RailSource.ENERGY_MODEL, PowerExactness.EXACT));
            }
        });
        r.liveJoules().forEach((rail, j) -> {
            if (!choice.frozenByEvidence(rail)) {
                out.add(HostMetrics.energy(rail, j, RailSource.ENERGY_MODEL, PowerExactness.EXACT));
            }
        });
        r.states().forEach((rail, st) -> out.add(HostMetrics.railState(rail,
                choice.frozenByEvidence(rail) ? RailStatus.FROZEN : st)));
        out.add(Point.of(SelfMetrics.READINGS_DROPPED, r.droppedTotal(), AttrKeys.SAMPLER, name()));
        return out;
    }
}
