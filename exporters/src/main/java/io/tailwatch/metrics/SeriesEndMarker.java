package io.tailwatch.metrics;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.internal.marshal.Marshaler;
import io.opentelemetry.exporter.internal.marshal.MarshalerUtil;
import io.opentelemetry.exporter.internal.marshal.MarshalerWithSize;
import io.opentelemetry.exporter.internal.marshal.ProtoFieldInfo;
import io.opentelemetry.exporter.internal.marshal.Serializer;
import io.opentelemetry.exporter.internal.otlp.InstrumentationScopeMarshaler;
import io.opentelemetry.exporter.internal.otlp.KeyValueMarshaler;
import io.opentelemetry.exporter.internal.otlp.ResourceMarshaler;
import io.opentelemetry.proto.collector.metrics.v1.internal.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.internal.Gauge;
import io.opentelemetry.proto.metrics.v1.internal.Histogram;
import io.opentelemetry.proto.metrics.v1.internal.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.internal.Metric;
import io.opentelemetry.proto.metrics.v1.internal.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.internal.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.internal.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.internal.Sum;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.metrics.export.MetricExporter;
import io.opentelemetry.sdk.resources.Resource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends pushed series the way a scrape does. When a cumulative series (a gauge, a counter, a histogram) that
 * the previous export carried is missing from this one (an engine stopped, an alert resolved, a lane window
 * emptied, a histogram expired), one more point goes out for it, flagged {@code NO_RECORDED_VALUE}
 * (OTLP {@code DataPointFlags}); Prometheus' OTLP receiver and the Collector's Prometheus exporters turn it into
 * a staleness marker, so the series leaves queries at once instead of lingering for the 5-minute lookback.
 *
 * <p>The SDK drops a series silently and its marshalers never write the flags field, so the flagged points are
 * encoded here (the same resource, scope, name, unit, type and attributes as the series' last point, for a
 * histogram also its bounds, since the receivers mark each bucket) and sent in a request of their own through
 * the SDK exporter's own transport (endpoint, headers, TLS, compression, timeout, retries as configured).
 * Delta series are left alone: a delta series without events in an interval is not an ended one.
 */
final class SeriesEndMarker extends ForwardingExporter {
    private static final Logger LOG = LoggerFactory.getLogger(SeriesEndMarker.class);
    /** OTLP DataPointFlags.DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK. */
    static final int NO_RECORDED_VALUE = 1;
    /** OTLP AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE. */
    private static final int CUMULATIVE = 2;

    /** Sends an encoded request and the number of points in it; null when the transport is not reachable. */
    private final BiFunction<Marshaler, Integer, CompletableResultCode> transport;
    private final java.util.function.LongSupplier clockNanos;
    /** The series the previous export carried, with their last point (bounded by the hub's series bound). */
    private Map<SeriesId, Last> previous = Map.of();

    SeriesEndMarker(MetricExporter delegate, BiFunction<Marshaler, Integer, CompletableResultCode> transport,
                    java.util.function.LongSupplier clockNanos) {
        super(delegate);
        this.transport = transport;
        this.clockNanos = clockNanos;
    }

    /** Wraps the SDK's OTLP exporter; without a reachable transport the exporter is returned as it is. */
    static MetricExporter wrap(MetricExporter exporter) {
        BiFunction<Marshaler, Integer, CompletableResultCode> t = transportOf(exporter);
        if (t == null) {
            LOG.warn("OTLP: ended series cannot be flagged with this exporter ({}); Prometheus keeps their"
                    + " last value for its lookback", exporter.getClass().getSimpleName());
            return exporter;
        }
        return new SeriesEndMarker(exporter, t, () -> {
            java.time.Instant now = java.time.Instant.now();
            return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        });
    }

    /**
     * The sender inside the SDK's OTLP exporters (HTTP and gRPC alike have a {@code delegate} with a public
     * {@code export(Marshaler, int)}). Read once at start; a version of the SDK without it is reported there,
     * and the test of ended series fails on it.
     */
    static BiFunction<Marshaler, Integer, CompletableResultCode> transportOf(MetricExporter exporter) {
        try {
            java.lang.reflect.Field f = exporter.getClass().getDeclaredField("delegate");
            f.setAccessible(true);
            Object sender = f.get(exporter);
            java.lang.reflect.Method export = sender.getClass().getMethod("export", Marshaler.class, int.class);
            return (m, n) -> {
                try {
                    return (CompletableResultCode) export.invoke(sender, m, n);
                } catch (ReflectiveOperationException e) {
                    return CompletableResultCode.ofExceptionalFailure(e);
                }
            };
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private record SeriesId(String metric, Attributes attributes) {
    }

    /** What identifies a metric on the wire: its resource, scope, name, description, unit and kind. */
    private record MetricId(Resource resource, InstrumentationScopeInfo scope, String name, String description,
                            String unit, MetricDataType type, boolean monotonic) {
        static MetricId of(MetricData m) {
            boolean monotonic = switch (m.getType()) {
                case DOUBLE_SUM -> m.getDoubleSumData().isMonotonic();
                case LONG_SUM -> m.getLongSumData().isMonotonic();
                default -> false;
            };
            return new MetricId(m.getResource(), m.getInstrumentationScopeInfo(), m.getName(), m.getDescription(),
                    m.getUnit(), m.getType(), monotonic);
        }
    }

    /**
     * A series' last exported point, copied: an exporter in the SDK's reusable-data mode hands over objects that
     * the next collection overwrites. {@code bounds} is null unless the series is a histogram.
     */
    record Last(MetricId metric, Attributes attributes, long startNanos, long epochNanos, List<Double> bounds) {
        static Last of(MetricId metric, PointData p) {
            List<Double> bounds = p instanceof HistogramPointData h ? List.copyOf(h.getBoundaries()) : null;
            return new Last(metric, p.getAttributes(), p.getStartEpochNanos(), p.getEpochNanos(), bounds);
        }
    }

    @Override
    public CompletableResultCode export(Collection<MetricData> metrics) {
        Map<SeriesId, Last> now = new HashMap<>();
        for (MetricData m : metrics) {
            if (!cumulative(m)) {
                continue;
            }
            MetricId id = MetricId.of(m);
            for (PointData p : m.getData().getPoints()) {
                now.put(new SeriesId(m.getName(), p.getAttributes()), Last.of(id, p));
            }
        }
        List<Last> ended = new ArrayList<>();
        for (Map.Entry<SeriesId, Last> e : previous.entrySet()) {
            if (!now.containsKey(e.getKey())) {
                ended.add(e.getValue());
            }
        }
        previous = now;
        CompletableResultCode result = delegate.export(metrics);
        if (ended.isEmpty()) {
            return result;
        }
        // After the export has been answered, never beside it: a receiver appends each request as one batch and
        // refuses a whole batch with a sample older than what it holds, so the flagged points, stamped now, must
        // not arrive first (the target_info each request brings would then be out of order).
        CompletableResultCode both = new CompletableResultCode();
        result.whenComplete(() -> {
            CompletableResultCode marks = transport.apply(request(ended, clockNanos.getAsLong()), ended.size());
            marks.whenComplete(() -> {
                if (result.isSuccess() && marks.isSuccess()) {
                    both.succeed();
                } else {
                    both.fail();
                }
            });
        });
        return both;
    }

    /** Gauges, and sums and histograms with cumulative temporality: the series a scrape would show. */
    private static boolean cumulative(MetricData m) {
        return switch (m.getType()) {
            case DOUBLE_GAUGE, LONG_GAUGE -> true;
            case DOUBLE_SUM -> m.getDoubleSumData().getAggregationTemporality() == AggregationTemporality.CUMULATIVE;
            case LONG_SUM -> m.getLongSumData().getAggregationTemporality() == AggregationTemporality.CUMULATIVE;
            case HISTOGRAM -> m.getHistogramData().getAggregationTemporality() == AggregationTemporality.CUMULATIVE;
            default -> false;
        };
    }

    /** One ExportMetricsServiceRequest with a flagged point per ended series, grouped by resource, scope and metric. */
    static Marshaler request(List<Last> ended, long timeNanos) {
        Map<Resource, Map<InstrumentationScopeInfo, Map<MetricId, List<Marshaler>>>> grouped = new LinkedHashMap<>();
        for (Last l : ended) {
            grouped.computeIfAbsent(l.metric().resource(), r -> new LinkedHashMap<>())
                    .computeIfAbsent(l.metric().scope(), s -> new LinkedHashMap<>())
                    .computeIfAbsent(l.metric(), m -> new ArrayList<>())
                    .add(point(l, timeNanos));
        }
        Message request = new Message();
        grouped.forEach((resource, scopes) -> {
            Message rm = new Message().message(ResourceMetrics.RESOURCE, ResourceMarshaler.create(resource))
                    .string(ResourceMetrics.SCHEMA_URL, resource.getSchemaUrl());
            scopes.forEach((scope, byMetric) -> {
                Message sm = new Message().message(ScopeMetrics.SCOPE, InstrumentationScopeMarshaler.create(scope))
                        .string(ScopeMetrics.SCHEMA_URL, scope.getSchemaUrl());
                byMetric.forEach((metric, points) -> sm.message(ScopeMetrics.METRICS, metric(metric, points)));
                rm.message(ResourceMetrics.SCOPE_METRICS, sm.done());
            });
            request.message(ExportMetricsServiceRequest.RESOURCE_METRICS, rm.done());
        });
        return request.done();
    }

    private static Marshaler metric(MetricId m, List<Marshaler> points) {
        Message data = new Message();
        points.forEach(p -> data.message(Sum.DATA_POINTS, p));
        ProtoFieldInfo field;
        switch (m.type()) {
            case DOUBLE_SUM, LONG_SUM -> {
                field = Metric.SUM;
                data.varint(Sum.AGGREGATION_TEMPORALITY, CUMULATIVE).varint(Sum.IS_MONOTONIC, m.monotonic() ? 1 : 0);
            }
            case HISTOGRAM -> {
                field = Metric.HISTOGRAM;
                data.varint(Histogram.AGGREGATION_TEMPORALITY, CUMULATIVE);
            }
            default -> field = Metric.GAUGE;
        }
        return new Message().string(Metric.NAME, m.name()).string(Metric.DESCRIPTION, m.description())
                .string(Metric.UNIT, m.unit()).message(field, data.done()).done();
    }

    /**
     * The flagged point: the series' attributes and start time, this export's time, the flag; a histogram's also
     * carries its bounds (zero counts and a zero sum, which the flag says to ignore) so that every bucket ends.
     */
    private static Marshaler point(Last l, long timeNanos) {
        boolean histogram = l.bounds() != null;
        Message p = new Message();
        // The two point messages number their fields differently (attributes are 7 in one, 9 in the other).
        for (KeyValueMarshaler kv : KeyValueMarshaler.createForAttributes(l.attributes())) {
            p.message(histogram ? HistogramDataPoint.ATTRIBUTES : NumberDataPoint.ATTRIBUTES, kv);
        }
        p.fixed64(histogram ? HistogramDataPoint.START_TIME_UNIX_NANO : NumberDataPoint.START_TIME_UNIX_NANO, l.startNanos())
                .fixed64(histogram ? HistogramDataPoint.TIME_UNIX_NANO : NumberDataPoint.TIME_UNIX_NANO,
                        Math.max(timeNanos, l.epochNanos() + 1));
        if (histogram) {
            List<Long> zeros = java.util.Collections.nCopies(l.bounds().size() + 1, 0L);
            return p.fixed64(HistogramDataPoint.COUNT, 0).double0(HistogramDataPoint.SUM, 0)
                    .fixed64s(HistogramDataPoint.BUCKET_COUNTS, zeros)
                    .doubles(HistogramDataPoint.EXPLICIT_BOUNDS, l.bounds())
                    .varint(HistogramDataPoint.FLAGS, NO_RECORDED_VALUE).done();
        }
        return p.double0(NumberDataPoint.AS_DOUBLE, 0).varint(NumberDataPoint.FLAGS, NO_RECORDED_VALUE).done();
    }

    /** A protobuf message built field by field with the SDK's serializer (its size known before writing). */
    private static final class Message {
        private interface Field {
            void write(Serializer s) throws IOException;
        }

        private final List<Field> fields = new ArrayList<>();
        private int size;

        Message message(ProtoFieldInfo f, Marshaler m) {
            size += MarshalerUtil.sizeMessage(f, m);
            fields.add(s -> s.serializeMessage(f, m));
            return this;
        }

        Message string(ProtoFieldInfo f, String v) {
            byte[] b = v == null ? new byte[0] : v.getBytes(StandardCharsets.UTF_8);
            size += MarshalerUtil.sizeBytes(f, b);
            fields.add(s -> s.serializeString(f, b));
            return this;
        }

        Message varint(ProtoFieldInfo f, int v) {
            size += MarshalerUtil.sizeUInt32(f, v);
            fields.add(s -> s.serializeUInt32(f, v));
            return this;
        }

        Message fixed64(ProtoFieldInfo f, long v) {
            size += MarshalerUtil.sizeFixed64Optional(f, v);
            fields.add(s -> s.serializeFixed64Optional(f, v));
            return this;
        }

        /** A double written even when zero (a oneof or optional field whose presence counts). */
        Message double0(ProtoFieldInfo f, double v) {
            size += MarshalerUtil.sizeDoubleOptional(f, v);
            fields.add(s -> s.serializeDoubleOptional(f, v));
            return this;
        }

        Message fixed64s(ProtoFieldInfo f, List<Long> v) {
            size += MarshalerUtil.sizeRepeatedFixed64(f, v);
            fields.add(s -> s.serializeRepeatedFixed64(f, v));
            return this;
        }

        Message doubles(ProtoFieldInfo f, List<Double> v) {
            size += MarshalerUtil.sizeRepeatedDouble(f, v);
            fields.add(s -> s.serializeRepeatedDouble(f, v));
            return this;
        }

        Marshaler done() {
            List<Field> fs = List.copyOf(fields);
            return new MarshalerWithSize(size) {
                @Override
                protected void writeTo(Serializer s) throws IOException {
                    for (Field f : fs) {
                        f.write(s);
                    }
                }
            };
        }
    }
}
