package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import io.tailwatch.metrics.AttrValues.PowerSource;
import java.util.List;

/**
 * Energy per output token, live: the host's energy over the last minute shared among the engines by their
 * share of the output tokens generated in it (proxied requests and probes). Absent where the host's power
 * is unknown, and for an engine that generated no token in the window.
 */
public final class EnergyMetrics {
    private EnergyMetrics() {
    }

    static final AttributeDef ENGINE = free(AttrKeys.ENGINE, "Configured engine name");
    static final AttributeDef SOURCE = oneOf(AttrKeys.POWER_SOURCE,
            "Host power the figure rests on: rails (sum of the measured rails), system (whole-host figure, where "
                    + "the rails are frozen or absent)", PowerSource.class);

    public static final MetricDef ENERGY_PER_OUTPUT_TOKEN = MetricDef.gauge("tailwatch.engine.energy_per_output_token",
            "J/{token}",
            "Host energy per output token of an engine over the last minute: the host's joules in the window times the "
                    + "engine's share of the output tokens (through its proxy plus its probes), over the engine's tokens. "
                    + "Every engine active in the window gets the same figure (host joules over all tokens); "
                    + "tailwatch.engine.power.attributed tells them apart. Absent where host power is unknown.",
            ENGINE, SOURCE);

    public static final MetricDef ATTRIBUTED_POWER = MetricDef.gauge("tailwatch.engine.power.attributed", "W",
            "An engine's share of the host's average power over the last minute, by its share of the output tokens "
                    + "in the window. Absent where host power is unknown.", ENGINE, SOURCE);

    public static final List<MetricDef> ALL = List.of(ENERGY_PER_OUTPUT_TOKEN, ATTRIBUTED_POWER);
}
