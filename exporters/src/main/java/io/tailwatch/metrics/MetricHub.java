package io.tailwatch.metrics;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single place values flow through on their way to the exporters. Each producer (a sampler,
 * a prober, the rule evaluator) publishes its whole current set of series; what it no longer
 * publishes disappears from the output. Points are checked against their declarations, and each
 * metric is bounded in how many series it may hold.
 */
public final class MetricHub {
    private static final Logger LOG = LoggerFactory.getLogger(MetricHub.class);
    public static final int DEFAULT_MAX_SERIES_PER_METRIC = 500;

    private final Clock clock;
    private final int maxSeriesPerMetric;
    private final Map<String, List<Point>> byProducer = new ConcurrentHashMap<>();
    private final List<MetricSink> sinks = new CopyOnWriteArrayList<>();
    private final AtomicLong dropped = new AtomicLong();
    private final Map<String, Integer> histogramSeries = new ConcurrentHashMap<>();
    private volatile MetricSnapshot snapshot = MetricSnapshot.EMPTY;

    public MetricHub() {
        this(Clock.systemUTC(), DEFAULT_MAX_SERIES_PER_METRIC);
    }

    public MetricHub(Clock clock, int maxSeriesPerMetric) {
        this.clock = clock;
        this.maxSeriesPerMetric = maxSeriesPerMetric;
    }

    public void addSink(MetricSink sink) {
        sinks.add(sink);
        sink.onSnapshot(snapshot);
    }

    public void removeSink(MetricSink sink) {
        sinks.remove(sink);
    }

    /** Replaces everything {@code producer} published before with {@code points}. */
    public void publish(String producer, List<Point> points) {
        for (Point p : points) {
            check(p.metric(), p.attributes());
            if (p.metric().instrument() == Instrument.HISTOGRAM) {
                throw new IllegalArgumentException(p.metric().name() + " is a histogram: use record()");
            }
        }
        MetricSnapshot next;
        synchronized (this) {
            byProducer.put(producer, List.copyOf(points));
            next = merge();
            snapshot = next;
        }
        for (MetricSink s : sinks) {
            s.onSnapshot(next);
        }
    }

    /** Records one histogram event. */
    public void record(MetricDef histogram, Map<String, String> attributes, double value) {
        if (histogram.instrument() != Instrument.HISTOGRAM) {
            throw new IllegalArgumentException(histogram.name() + " is not a histogram");
        }
        Map<String, String> attrs = Attrs.bounded(attributes);
        check(histogram, attrs);
        String key = histogram.name() + attrs;
        if (!histogramSeries.containsKey(key)) {
            long sameMetric = histogramSeries.keySet().stream().filter(k -> k.startsWith(histogram.name() + "{")).count();
            if (sameMetric >= maxSeriesPerMetric) {
                noteDropped(histogram);
                return;
            }
            histogramSeries.put(key, 1);
        }
        for (MetricSink s : sinks) {
            s.onRecord(histogram, attrs, value);
        }
    }

    public MetricSnapshot snapshot() {
        return snapshot;
    }

    public long droppedSeries() {
        return dropped.get();
    }

    private MetricSnapshot merge() {
        List<Point> all = new ArrayList<>();
        Map<String, Integer> perMetric = new HashMap<>();
        for (List<Point> ps : byProducer.values()) {
            for (Point p : ps) {
                int n = perMetric.merge(p.metric().name(), 1, Integer::sum);
                if (n > maxSeriesPerMetric) {
                    noteDropped(p.metric());
                    continue;
                }
                all.add(p);
            }
        }
        all.add(new Point(SelfMetrics.SERIES_DROPPED, Map.of(), dropped.get()));
        return new MetricSnapshot(clock.instant(), all);
    }

    private void noteDropped(MetricDef metric) {
        if (dropped.getAndIncrement() % 1000 == 0) {
            LOG.warn("series bound of {} reached for {}; further series are dropped", maxSeriesPerMetric, metric.name());
        }
    }

    private static void check(MetricDef def, Map<String, String> attrs) {
        java.util.Set<String> required = new java.util.HashSet<>();
        for (AttributeDef a : def.attributes()) {
            if (!a.optional()) {
                required.add(a.name());
            }
        }
        if (!attrs.keySet().containsAll(required) || !def.attributeNames().containsAll(attrs.keySet())) {
            throw new IllegalArgumentException(def.name() + ": attributes " + attrs.keySet()
                    + " do not match the declaration " + def.attributeNames());
        }
        for (Map.Entry<String, String> e : attrs.entrySet()) {
            AttributeDef a = def.attribute(e.getKey());
            if (e.getValue() == null || !a.accepts(e.getValue())) {
                throw new IllegalArgumentException(def.name() + ": " + e.getKey() + "=" + e.getValue()
                        + " is not one of " + a.allowed());
            }
        }
    }
}
