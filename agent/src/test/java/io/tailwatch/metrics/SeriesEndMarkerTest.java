package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tailwatch.testing.OtlpReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pushed series that ends gets one last point flagged NO_RECORDED_VALUE (what Prometheus' OTLP receiver turns
 * into a staleness marker), through the real SDK exporter to a loopback OTLP/HTTP receiver decoded with the
 * official proto classes.
 */
class SeriesEndMarkerTest {
    private static final int NO_RECORDED_VALUE = 1;

    private record Seen(Metric metric, Map<String, String> attributes, int flags, ResourceMetrics resource,
                        ScopeMetrics scope, HistogramDataPoint histogram) {
    }

    private static Map<String, String> attrs(List<KeyValue> kvs) {
        Map<String, String> m = new HashMap<>();
        kvs.forEach(kv -> m.put(kv.getKey(), kv.getValue().hasIntValue() ? Long.toString(kv.getValue().getIntValue())
                : kv.getValue().getStringValue()));
        return m;
    }

    /** Every point of the named metric in the requests received from index {@code from} on. */
    private static List<Seen> points(OtlpReceiver receiver, int from, String name) {
        List<Seen> out = new ArrayList<>();
        List<ExportMetricsServiceRequest> rs = receiver.requests();
        for (ExportMetricsServiceRequest r : rs.subList(from, rs.size())) {
            for (ResourceMetrics rm : r.getResourceMetricsList()) {
                for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                    for (Metric m : sm.getMetricsList()) {
                        if (!m.getName().equals(name)) {
                            continue;
                        }
                        List<NumberDataPoint> numbers = m.hasGauge() ? m.getGauge().getDataPointsList()
                                : m.hasSum() ? m.getSum().getDataPointsList() : List.of();
                        numbers.forEach(p -> out.add(new Seen(m, attrs(p.getAttributesList()), p.getFlags(), rm, sm, null)));
                        if (m.hasHistogram()) {
                            m.getHistogram().getDataPointsList().forEach(p ->
                                    out.add(new Seen(m, attrs(p.getAttributesList()), p.getFlags(), rm, sm, p)));
                        }
                    }
                }
            }
        }
        return out;
    }

    private static OtlpExporter start(OtlpReceiver receiver, MetricHub hub) {
        // A long interval: each export below is a flush, so the test decides what every request holds.
        return OtlpExporter.start(new OtlpSettings(true, receiver.endpoint(), "http/protobuf", Duration.ofMinutes(10),
                Map.of()), hub, Map.of("service.instance.id", "host-a", "host.name", "host-a"));
    }

    @Test
    void aGaugeOrCounterThatEndsIsSentOnceMoreFlaggedAndNotAgain() throws Exception {
        MetricHub hub = new MetricHub();
        try (OtlpReceiver receiver = new OtlpReceiver(); OtlpExporter otlp = start(receiver, hub)) {
            hub.publish("engines", List.of(Point.of(EngineMetrics.UP, 1, "tailwatch.engine.name", "a"),
                    Point.of(EngineMetrics.UP, 1, "tailwatch.engine.name", "b")));
            hub.publish("alerts", List.of(new Point(AlertMetrics.ALERT_ACTIVE,
                    sample(AlertMetrics.ALERT_ACTIVE), 1)));
            assertThat(otlp.flush(5_000)).isTrue();
            List<Seen> first = points(receiver, 0, EngineMetrics.UP.name());
            assertThat(first).extracting(Seen::flags).containsOnly(0);
            assertThat(first).hasSize(2);

            // Engine b stops and the alert resolves: their series leave the hub.
            int mark = receiver.received();
            hub.publish("engines", List.of(Point.of(EngineMetrics.UP, 1, "tailwatch.engine.name", "a")));
            hub.publish("alerts", List.of());
            assertThat(otlp.flush(5_000)).isTrue();
            List<Seen> up = points(receiver, mark, EngineMetrics.UP.name());
            assertThat(up).filteredOn(s -> s.attributes().equals(Map.of("tailwatch.engine.name", "a")))
                    .extracting(Seen::flags).containsExactly(0);
            List<Seen> ended = up.stream().filter(s -> s.attributes().equals(Map.of("tailwatch.engine.name", "b"))).toList();
            assertThat(ended).extracting(Seen::flags).containsExactly(NO_RECORDED_VALUE);
            // Same metric identity and origin as the series' live points: name, unit, kind, resource, scope.
            Seen live = first.get(0);
            assertThat(ended.get(0).metric().getUnit()).isEqualTo(live.metric().getUnit());
            assertThat(ended.get(0).metric().hasGauge()).isTrue();
            assertThat(ended.get(0).resource().getResource()).isEqualTo(live.resource().getResource());
            assertThat(ended.get(0).scope().getScope()).isEqualTo(live.scope().getScope());
            assertThat(points(receiver, mark, AlertMetrics.ALERT_ACTIVE.name())).extracting(Seen::flags)
                    .containsExactly(NO_RECORDED_VALUE);

            // Once ended, a series is not flagged again; when it comes back it is live again.
            mark = receiver.received();
            assertThat(otlp.flush(5_000)).isTrue();
            assertThat(points(receiver, mark, EngineMetrics.UP.name())).extracting(Seen::flags).containsExactly(0);
            mark = receiver.received();
            hub.publish("engines", List.of(Point.of(EngineMetrics.UP, 1, "tailwatch.engine.name", "a"),
                    Point.of(EngineMetrics.UP, 0, "tailwatch.engine.name", "b")));
            assertThat(otlp.flush(5_000)).isTrue();
            assertThat(points(receiver, mark, EngineMetrics.UP.name())).extracting(Seen::flags).containsOnly(0).hasSize(2);
        }
    }

    @Test
    void anExpiredHistogramEndsWithItsBoundsSoEveryBucketEnds() throws Exception {
        io.tailwatch.testing.SimClock clock = new io.tailwatch.testing.SimClock();
        MetricHub hub = new MetricHub(clock, MetricHub.Limits.DEFAULT);
        try (OtlpReceiver receiver = new OtlpReceiver(); OtlpExporter otlp = start(receiver, hub)) {
            Map<String, String> probe = sample(ProbeMetrics.OPERATION_DURATION);
            hub.record(ProbeMetrics.OPERATION_DURATION, probe, 0.3);
            assertThat(otlp.flush(5_000)).isTrue();
            List<Seen> live = points(receiver, 0, ProbeMetrics.OPERATION_DURATION.name());
            assertThat(live).extracting(Seen::flags).containsExactly(0);

            int mark = receiver.received();
            clock.advance(hub.limits().expiry().plusSeconds(1)); // the export reads the histograms, which sweeps
            assertThat(otlp.flush(5_000)).isTrue();
            List<Seen> ended = points(receiver, mark, ProbeMetrics.OPERATION_DURATION.name());
            assertThat(ended).hasSize(1);
            assertThat(ended.get(0).flags()).isEqualTo(NO_RECORDED_VALUE);
            assertThat(ended.get(0).attributes()).isEqualTo(live.get(0).attributes());
            HistogramDataPoint h = ended.get(0).histogram();
            assertThat(h.getExplicitBoundsList()).isEqualTo(live.get(0).histogram().getExplicitBoundsList());
            assertThat(h.getBucketCountsCount()).isEqualTo(live.get(0).histogram().getBucketCountsCount());
            assertThat(h.hasSum()).isTrue();
            assertThat(ended.get(0).metric().getHistogram().getAggregationTemporality())
                    .isEqualTo(live.get(0).metric().getHistogram().getAggregationTemporality());
        }
    }

    /** One allowed value for every required attribute of {@code def}. */
    static Map<String, String> sample(MetricDef def) {
        Map<String, String> m = new HashMap<>();
        for (AttributeDef a : def.attributes()) {
            if (!a.optional()) {
                m.put(a.name(), a.allowed().isEmpty() ? "x" : a.allowed().get(0));
            }
        }
        return m;
    }
}
