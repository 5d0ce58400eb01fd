package io.tailwatch.metrics;

import java.util.List;
import java.util.Objects;

/**
 * One attribute (label) of a metric. {@code allowed} empty means the value comes from a bounded set
 * the agent controls (configured engine names, loaded models, sampler names); non-empty lists every
 * value that may appear.
 */
public record AttributeDef(String name, String description, List<String> allowed, boolean optional) {
    public AttributeDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        allowed = List.copyOf(allowed);
    }

    public static AttributeDef free(String name, String description) {
        return new AttributeDef(name, description, List.of(), false);
    }

    /**
     * An attribute that only some series carry (e.g. error.type, set on failures only). OTLP
     * omits it where absent; so do Prometheus gauges and counters, while histograms render it as an
     * empty label (one label set per histogram family), which PromQL treats as absent.
     */
    public static AttributeDef optional(String name, String description) {
        return new AttributeDef(name, description, List.of(), true);
    }

    public static AttributeDef oneOf(String name, String description, String... allowed) {
        return new AttributeDef(name, description, List.of(allowed), false);
    }

    public boolean accepts(String value) {
        return allowed.isEmpty() || allowed.contains(value);
    }
}
