package io.tailwatch.metrics;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
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
 * Hands the hub's histogram series to the OpenTelemetry SDK at export time (cumulative, explicit
 * buckets). The SDK's own synchronous histograms keep every attribute set they ever saw for the
 * life of the process under cumulative temporality; reading the hub instead means a series the hub
 * expired or never admitted is not exported either, so OTLP has the same bounds as Prometheus.
 */
final class HubHistogramProducer implements MetricProducer {
    private final InstrumentationScopeInfo scope;
    private final MetricHub hub;

    /** {@code scopeVersion}: the agent's version, as on the other instruments' scope. */
    HubHistogramProducer(MetricHub hub, String scopeVersion) {
        this.hub = hub;
        this.scope = InstrumentationScopeInfo.builder(OtlpExporter.SCOPE_NAME).setVersion(scopeVersion)
                .setSchemaUrl(OtlpExporter.SCHEMA_URL).build();
    }

    @Override
    public Collection<MetricData> produce(Resource resource) {
        long now = System.currentTimeMillis() * 1_000_000L;
        Map<MetricDef, List<HistogramPointData>> byMetric = new LinkedHashMap<>();
        for (HistogramSeries s : hub.histograms()) {
            byMetric.computeIfAbsent(s.metric(), k -> new ArrayList<>()).add(point(s, now));
        }
        List<MetricData> out = new ArrayList<>(byMetric.size());
        byMetric.forEach((def, points) -> out.add(new Histogram(resource, scope, def, new Points(List.copyOf(points)))));
        return out;
    }

    private static HistogramPointData point(HistogramSeries s, long now) {
        AttributesBuilder b = Attributes.builder();
        s.attributes().forEach(b::put);
        List<Double> bounds = new ArrayList<>();
        for (double d : s.bounds()) {
            bounds.add(d);
        }
        List<Long> counts = new ArrayList<>();
        for (long c : s.counts()) {
            counts.add(c);
        }
        return new Point(s.startEpochNanos(), Math.max(now, s.lastEpochNanos()), b.build(), s.sum(), s.count(),
                s.min(), s.max(), List.copyOf(bounds), List.copyOf(counts));
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

    private record Points(Collection<HistogramPointData> points) implements HistogramData {
        @Override
        public AggregationTemporality getAggregationTemporality() {
            return AggregationTemporality.CUMULATIVE;
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
