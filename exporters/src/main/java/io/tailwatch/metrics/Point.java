package io.tailwatch.metrics;

import java.util.Map;
import java.util.Objects;

/** One observed value of a gauge or counter series. Attributes are kept sorted and immutable. */
public record Point(MetricDef metric, Map<String, String> attributes, double value) {
    public Point {
        Objects.requireNonNull(metric, "metric");
        attributes = java.util.Collections.unmodifiableMap(Attrs.bounded(attributes));
    }

    public static Point of(MetricDef metric, double value, String... keyValues) {
        return new Point(metric, Attrs.of(keyValues), value);
    }

    /** A point carrying one enumerated attribute value (under its own key) and free key/value pairs. */
    public static Point of(MetricDef metric, double value, AttrValue typed, String... keyValues) {
        return new Point(metric, Attrs.of(typed, keyValues), value);
    }

    /** A point carrying two enumerated attribute values and free key/value pairs. */
    public static Point of(MetricDef metric, double value, AttrValue typed, AttrValue typed2, String... keyValues) {
        Map<String, String> m = Attrs.of(typed, keyValues);
        Attrs.put(m, typed2);
        return new Point(metric, m, value);
    }

    /** Key of this series within its metric. */
    public SeriesKey key() {
        return new SeriesKey(metric.name(), attributes);
    }

    public record SeriesKey(String metric, Map<String, String> attributes) {
    }
}
