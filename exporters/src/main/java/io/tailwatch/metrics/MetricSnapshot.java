package io.tailwatch.metrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Immutable view of every gauge and counter series at one moment. */
public final class MetricSnapshot {
    public static final MetricSnapshot EMPTY = new MetricSnapshot(Instant.EPOCH, List.of());

    private final Instant at;
    private final List<Point> points;
    private final Map<String, List<Point>> byMetric;

    public MetricSnapshot(Instant at, List<Point> points) {
        this.at = at;
        this.points = List.copyOf(points);
        Map<String, List<Point>> m = new LinkedHashMap<>();
        for (Point p : this.points) {
            m.computeIfAbsent(p.metric().name(), k -> new ArrayList<>()).add(p);
        }
        m.replaceAll((k, v) -> Collections.unmodifiableList(v));
        this.byMetric = Collections.unmodifiableMap(m);
    }

    public Instant at() {
        return at;
    }

    public List<Point> points() {
        return points;
    }

    /** The points by metric name, in the order the metrics first appear. */
    Map<String, List<Point>> byMetric() {
        return byMetric;
    }

    public List<Point> of(MetricDef metric) {
        return byMetric.getOrDefault(metric.name(), List.of());
    }

    /** The value of the single series of a metric matching the given attributes, or null when absent. */
    public Double value(MetricDef metric, String... keyValues) {
        return value(metric, Attrs.of(keyValues));
    }

    /** As {@link #value(MetricDef, String...)}, with one enumerated attribute value under its own key. */
    public Double value(MetricDef metric, AttrValue typed, String... keyValues) {
        return value(metric, Attrs.of(typed, keyValues));
    }

    private Double value(MetricDef metric, Map<String, String> want) {
        for (Point p : of(metric)) {
            if (p.attributes().entrySet().containsAll(want.entrySet())) {
                return p.value();
            }
        }
        return null;
    }
}
