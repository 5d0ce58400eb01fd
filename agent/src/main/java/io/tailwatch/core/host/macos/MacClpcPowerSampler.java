package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrValues.RailSource;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU, DRAM and ANE power and energy from the AppleCLPC accumulators ({@link ClpcEnergy}), for the rails
 * {@link RailChoice} gives to CLPC: those the Energy Model has frozen (macOS 27) or does not have. Each point
 * carries {@code tailwatch.power.rail.source=clpc} and its exactness. A Mac without the CLPC group exports
 * nothing here. Its own native probe ({@link MacProbes#IOREPORT_CLPC}) keeps it out when the driver's channels
 * crash the self-check or do not fit the layout, without touching the Energy Model sampler.
 */
public final class MacClpcPowerSampler extends IOReportSampler {
    private final Lazy<MacSystem> system;
    private final RailChoice choice;
    private ClpcEnergy energy;

    public MacClpcPowerSampler(Lazy<IOReportSource> source, Lazy<MacSystem> system, RailChoice choice) {
        super(source);
        this.system = system;
        this.choice = choice;
    }

    @Override
    public String name() {
        return "power_clpc";
    }

    @Override
    public String probeId() {
        return MacProbes.IOREPORT_CLPC;
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        IOReportDelta delta = nextDelta();
        if (energy == null) {
            energy = new ClpcEnergy(brand(system.getOrNull()));
        }
        if (delta == null) {
            return List.of();
        }
        ClpcEnergy.Reading r = energy.apply(delta);
        choice.clpc(r.watts());
        List<Point> out = new ArrayList<>();
        r.watts().forEach((rail, w) -> {
            if (choice.useClpc(rail)) {
                out.add(HostMetrics.power(rail, w, RailSource.CLPC, energy.exactness()));
            }
        });
        r.joules().forEach((rail, j) -> {
            if (choice.useClpc(rail)) {
                out.add(HostMetrics.energy(rail, j, RailSource.CLPC, energy.exactness()));
            }
        });
        return out;
    }

    private static String brand(MacSystem s) {
        if (s == null) {
            return null;
        }
        try {
            return s.sysctlString("machdep.cpu.brand_string");
        } catch (IOException e) {
            return null;
        }
    }
}
