package io.tailwatch.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One attribute (label) of a metric. {@code values} empty means the value comes from a bounded set
 * the agent controls (configured engine names, loaded models, sampler names); non-empty lists every
 * value that may appear, as the typed constants of {@link AttrValues}.
 */
public record AttributeDef(String name, String description, List<AttrValue> values, boolean optional) {
    public AttributeDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        values = List.copyOf(values);
        for (AttrValue v : values) {
            if (!v.key().equals(name)) {
                throw new IllegalArgumentException(name + ": value " + v.value() + " belongs to " + v.key());
            }
        }
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

    /** An enumerated attribute: exactly these values may appear, in this order in the reference. */
    public static AttributeDef oneOf(String name, String description, AttrValue... allowed) {
        if (allowed.length == 0) {
            throw new IllegalArgumentException(name + ": an enumerated attribute needs its values");
        }
        return new AttributeDef(name, description, List.of(allowed), false);
    }

    /** An enumerated attribute that may take every value of {@code type}. */
    public static <E extends Enum<E> & AttrValue> AttributeDef oneOf(String name, String description, Class<E> type) {
        return oneOf(name, description, type.getEnumConstants());
    }

    /** The exported strings of the allowed values; empty for a free attribute. */
    public List<String> allowed() {
        List<String> out = new ArrayList<>(values.size());
        for (AttrValue v : values) {
            out.add(v.value());
        }
        return Collections.unmodifiableList(out);
    }

    public boolean accepts(String value) {
        if (values.isEmpty()) {
            return true;
        }
        for (AttrValue v : values) {
            if (v.value().equals(value)) {
                return true;
            }
        }
        return false;
    }
}
