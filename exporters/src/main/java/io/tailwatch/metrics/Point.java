package io.tailwatch.metrics;

import java.util.Map;
import java.util.Objects;

/**
 * One observed value of a gauge or counter series. Attributes are kept sorted, bounded and immutable; a map a
 * point already keeps is taken as it is, so the hub can hand a series the same map at every publish (and
 * every point without attributes has the same one).
 */
public record Point(MetricDef metric, Map<String, String> attributes, double value) {
    public Point {
        Objects.requireNonNull(metric, "metric");
        attributes = attributes instanceof Kept ? attributes
                : attributes.isEmpty() ? Kept.NONE : new Kept(Attrs.bounded(attributes));
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

    /** A point's attributes: a read-only view of the sorted, bounded copy made once. */
    private static final class Kept extends java.util.AbstractMap<String, String> {
        /** Every point's empty attributes: a series without any keeps one map from merge to merge too. */
        static final Kept NONE = new Kept(Map.of());
        private final Map<String, String> map;

        Kept(Map<String, String> sorted) {
            this.map = java.util.Collections.unmodifiableMap(sorted);
        }

        @Override
        public java.util.Set<Entry<String, String>> entrySet() {
            return map.entrySet();
        }

        @Override
        public String get(Object name) {
            return map.get(name);
        }

        @Override
        public boolean containsKey(Object name) {
            return map.containsKey(name);
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public void forEach(java.util.function.BiConsumer<? super String, ? super String> action) {
            map.forEach(action);
        }
    }
}
