package io.tailwatch.metrics;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.Data;
import io.opentelemetry.sdk.metrics.data.DoubleExemplarData;
import io.opentelemetry.sdk.metrics.data.HistogramData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.export.MetricProducer;
import io.opentelemetry.sdk.resources.Resource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hands the hub's histogram series to the OpenTelemetry SDK at export time (explicit buckets,
 * cumulative or, when the temporality preference asks for it, delta). The SDK's own synchronous histograms keep every attribute set they ever saw for the
 * life of the process under cumulative temporality; reading the hub instead means a series the hub
 * expired or never admitted is not exported either, so OTLP has the same bounds as Prometheus.
 */
final class HubHistogramProducer implements MetricProducer {
    private final InstrumentationScopeInfo scope;
    private final MetricHub hub;
    private final AggregationTemporality temporality;
    /** Delta only: each series' counts at the last export (series the hub dropped are dropped here too). */
    private Map<HistogramSeries.Key, Exported> previous = new java.util.HashMap<>();

    private record Exported(long epochNanos, long[] counts, double sum, long count) {
    }

    /** {@code scopeVersion}: the agent's version, as on the other instruments' scope. */
    HubHistogramProducer(MetricHub hub, String scopeVersion) {
        this(hub, scopeVersion, AggregationTemporality.CUMULATIVE);
    }

    /** With DELTA, each export carries what was recorded since the previous one (min and max are left out). */
    HubHistogramProducer(MetricHub hub, String scopeVersion, AggregationTemporality temporality) {
        this.hub = hub;
        this.temporality = temporality;
        this.scope = InstrumentationScopeInfo.builder(OtlpExporter.SCOPE_NAME).setVersion(scopeVersion)
                .setSchemaUrl(OtlpExporter.SCHEMA_URL).build();
    }

    @Override
    public synchronized Collection<MetricData> produce(Resource resource) {
        long now = System.currentTimeMillis() * 1_000_000L;
        Map<MetricDef, List<HistogramPointData>> byMetric = new LinkedHashMap<>();
        Map<HistogramSeries.Key, Exported> seen = new java.util.HashMap<>();
        for (HistogramSeries s : hub.histograms()) {
            HistogramPointData p = temporality == AggregationTemporality.DELTA ? delta(s, now, seen) : point(s, now);
            if (p != null) {
                byMetric.computeIfAbsent(s.metric(), k -> new ArrayList<>()).add(p);
            }
        }
        if (temporality == AggregationTemporality.DELTA) {
            previous = seen;
        }
        List<MetricData> out = new ArrayList<>(byMetric.size());
        byMetric.forEach((def, points) -> out.add(new Histogram(resource, scope, def,
                new Points(List.copyOf(points), temporality))));
        return out;
    }

    private static HistogramPointData point(HistogramSeries s, long now) {
        return new Point(s.startEpochNanos(), Math.max(now, s.lastEpochNanos()), OtlpExporter.attributes(s.attributes()),
                s.sum(), s.count(), s.min(), s.max(), bounds(s), longs(s.counts()));
    }

    /** What was recorded since the last export; null when nothing was (no empty delta points). */
    private HistogramPointData delta(HistogramSeries s, long now, Map<HistogramSeries.Key, Exported> seen) {
        long end = Math.max(now, s.lastEpochNanos());
        long[] counts = s.counts();
        Exported before = previous.get(s.key());
        seen.put(s.key(), new Exported(end, counts, s.sum(), s.count()));
        if (before != null && before.count() == s.count()) {
            return null;
        }
        long start = before == null ? s.startEpochNanos() : before.epochNanos();
        long[] d = counts.clone();
        double sum = s.sum();
        long count = s.count();
        if (before != null && before.counts().length == d.length && before.count() <= count) {
            for (int i = 0; i < d.length; i++) {
                d[i] -= before.counts()[i];
            }
            sum -= before.sum();
            count -= before.count();
        }
        return new Point(start, end, OtlpExporter.attributes(s.attributes()), sum, count, Double.NaN, Double.NaN,
                bounds(s), longs(d));
    }

    private static List<Double> bounds(HistogramSeries s) {
        List<Double> bounds = new ArrayList<>();
        for (double d : s.bounds()) {
            bounds.add(d);
        }
        return List.copyOf(bounds);
    }

    private static List<Long> longs(long[] values) {
        List<Long> out = new ArrayList<>(values.length);
        for (long c : values) {
            out.add(c);
        }
        return List.copyOf(out);
    }

    private record Point(long startEpochNanos, long epochNanos, Attributes attributes, double sum, long count,
                         double min, double max, List<Double> boundaries, List<Long> counts)
            implements HistogramPointData {
        @Override
        public long getStartEpochNanos() {
            return startEpochNanos;
        }

        @Override
        public long getEpochNanos() {
            return epochNanos;
        }

        @Override
        public Attributes getAttributes() {
            return attributes;
        }

        @Override
        public double getSum() {
            return sum;
        }

        @Override
        public long getCount() {
            return count;
        }

        @Override
        public boolean hasMin() {
            return !Double.isNaN(min);
        }

        @Override
        public double getMin() {
            return min;
        }

        @Override
        public boolean hasMax() {
            return !Double.isNaN(max);
        }

        @Override
        public double getMax() {
            return max;
        }

        @Override
        public List<Double> getBoundaries() {
            return boundaries;
        }

        @Override
        public List<Long> getCounts() {
            return counts;
        }

        @Override
        public List<DoubleExemplarData> getExemplars() {
            return List.of();
        }
    }

    private record Points(Collection<HistogramPointData> points, AggregationTemporality temporality) implements HistogramData {
        @Override
        public AggregationTemporality getAggregationTemporality() {
            return temporality;
        }

        @Override
        public Collection<HistogramPointData> getPoints() {
            return points;
        }
    }

    private record Histogram(Resource resource, InstrumentationScopeInfo scope, MetricDef def, Points data) implements MetricData {
        @Override
        public Resource getResource() {
            return resource;
        }

        @Override
        public InstrumentationScopeInfo getInstrumentationScopeInfo() {
            return scope;
        }

        @Override
        public String getName() {
            return def.name();
        }

        @Override
        public String getDescription() {
            return def.description();
        }

        @Override
        public String getUnit() {
            return def.unit();
        }

        @Override
        public MetricDataType getType() {
            return MetricDataType.HISTOGRAM;
        }

        @Override
        public Data<?> getData() {
            return data;
        }
    }
}
