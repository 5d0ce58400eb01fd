package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Series that expire, bounds on the whole exposition, and dropped series counted once. */
class SeriesBoundsTest {
    /** A clock the test moves. */
    static final class TestClock extends Clock {
        volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    static Map<String, String> probeAttrs(String model, String error) {
        Map<String, String> m = new HashMap<>(CatalogAgreementTest.sampleAttributes(ProbeMetrics.OPERATION_DURATION));
        m.put("gen_ai.request.model", model);
        if (error != null) {
            m.put("error.type", error);
        }
        return m;
    }

    private static long otlpSeries(InMemoryMetricReader reader, String model) {
        long n = 0;
        for (MetricData d : reader.collectAllMetrics()) {
            if (d.getName().equals(ProbeMetrics.OPERATION_DURATION.name())) {
                n += d.getHistogramData().getPoints().stream()
                        .filter(p -> model.equals(p.getAttributes().asMap().entrySet().stream()
                                .filter(e -> e.getKey().getKey().equals("gen_ai.request.model"))
                                .map(e -> (String) e.getValue()).findFirst().orElse(null)))
                        .count();
            }
        }
        return n;
    }

    /** Histogram series on /metrics: one {@code _count} line each. */
    private static long renderedHistogramSeries(String text) {
        return text.lines().filter(l -> l.startsWith("gen_ai_") && l.contains("_count{")).count();
    }

    @Test
    void aModelNotProbedForTheExpiryTimeLeavesBothExporters() {
        TestClock clock = new TestClock();
        MetricHub hub = new MetricHub(clock, MetricHub.Limits.DEFAULT);
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of());
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        hub.addSink(OtlpExporter.withReader(reader, hub, Map.of()));

        hub.record(ProbeMetrics.OPERATION_DURATION, probeAttrs("old-model", null), 0.4);
        hub.record(ProbeMetrics.OPERATION_DURATION, probeAttrs("old-model", "http_500"), 0.1);
        assertThat(prom.scrape(null)).contains("gen_ai_request_model=\"old-model\"");
        assertThat(otlpSeries(reader, "old-model")).isEqualTo(2);
        // OTLP carries the counts per bucket: 0.1 in the (0.08, 0.16] bucket.
        MetricData d = reader.collectAllMetrics().stream()
                .filter(x -> x.getName().equals(ProbeMetrics.OPERATION_DURATION.name())).findFirst().orElseThrow();
        assertThat(d.getHistogramData().getPoints()).anySatisfy(p -> {
            assertThat(p.getCount()).isEqualTo(1);
            assertThat(p.getSum()).isEqualTo(0.1);
            assertThat(p.getCounts().get(ProbeMetrics.DURATION_BUCKETS.indexOf(0.16))).isEqualTo(1L);
        });

        clock.advance(Duration.ofMinutes(19));
        hub.record(ProbeMetrics.OPERATION_DURATION, probeAttrs("new-model", null), 0.4);
        assertThat(prom.scrape(null)).contains("gen_ai_request_model=\"old-model\"");

        clock.advance(Duration.ofMinutes(2)); // 21 minutes since old-model was last recorded
        hub.record(ProbeMetrics.OPERATION_DURATION, probeAttrs("new-model", null), 0.5);
        String text = prom.scrape(null);
        assertThat(text).doesNotContain("old-model").contains("gen_ai_request_model=\"new-model\"");
        assertThat(otlpSeries(reader, "old-model")).isZero();
        assertThat(otlpSeries(reader, "new-model")).isEqualTo(1);
        assertThat(renderedHistogramSeries(text)).isEqualTo(1);
        assertThat(hub.histogramSeriesCount()).isEqualTo(1);
    }

    @Test
    void aModelThatChangesEveryProbeKeepsTheExpositionWithinItsBounds() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch"));
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        hub.addSink(OtlpExporter.withReader(reader, hub, Map.of()));
        List<Point> gauges = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            gauges.add(Point.of(EngineMetrics.MODEL_CONTEXT, 4096, AttrKeys.ENGINE, "e", AttrKeys.MODEL, "gauge-model-" + i));
        }
        hub.publish("engine/e", gauges);
        for (int i = 0; i < 5000; i++) {
            String model = "rotating-model-with-a-long-name-" + i;
            hub.record(ProbeMetrics.OPERATION_DURATION, probeAttrs(model, null), 0.4);
            hub.record(ProbeMetrics.OPERATION_DURATION, probeAttrs(model, "http_500"), 0.4);
            hub.record(ProbeMetrics.TIME_TO_FIRST_CHUNK, probeAttrs(model, null).entrySet().stream()
                    .filter(e -> !e.getKey().equals("error.type"))
                    .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), 0.2);
        }
        hub.publish("engine/e", gauges);
        MetricHub.Limits l = hub.limits();
        String text = prom.scrape(null);
        String om = prom.scrape("application/openmetrics-text");
        assertThat(hub.estimatedExpositionBytes()).isLessThanOrEqualTo(l.maxExpositionBytes());
        // The estimate is an upper bound of the real text (plus the HELP/TYPE lines of the catalog).
        assertThat((long) text.length()).isLessThanOrEqualTo(hub.estimatedExpositionBytes() + 64 * 1024);
        assertThat((long) om.length()).isLessThanOrEqualTo(hub.estimatedExpositionBytes() + 64 * 1024);
        assertThat((long) text.length()).isLessThanOrEqualTo(l.maxExpositionBytes());
        assertThat(hub.histogramSeriesCount() + gauges.size()).isLessThanOrEqualTo(l.maxSeries());
        assertThat(renderedHistogramSeries(text)).isEqualTo(hub.histogramSeriesCount());
        assertThat(hub.droppedSeries()).isEqualTo(15000 - hub.histogramSeriesCount());
        assertThat(hub.snapshot().of(EngineMetrics.MODEL_CONTEXT)).hasSize(300);
        long otlpPoints = reader.collectAllMetrics().stream()
                .filter(d -> d.getName().startsWith("gen_ai.")).mapToLong(d -> d.getHistogramData().getPoints().size()).sum();
        assertThat(otlpPoints).isEqualTo(hub.histogramSeriesCount());
    }

    @Test
    void aDroppedSeriesCountsOnceAndItsWarningIsHourly() {
        TestClock clock = new TestClock();
        MetricHub hub = new MetricHub(clock, new MetricHub.Limits(3, 4000, 2L << 20, Duration.ofMinutes(20)));
        List<String> warnings = new ArrayList<>();
        hub.warningsTo(warnings::add);
        List<Point> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            many.add(Point.of(HostMetrics.PROCESS_RSS, i, AttrKeys.ENGINE, "e" + i));
        }
        for (int round = 0; round < 2000; round++) {
            hub.publish("p", many);
            hub.publish("other", List.of(Point.of(HostMetrics.MEMORY_LIMIT, round)));
        }
        assertThat(hub.snapshot().of(HostMetrics.PROCESS_RSS)).hasSize(3);
        assertThat(hub.droppedSeries()).isEqualTo(7);
        assertThat(hub.snapshot().value(SelfMetrics.SERIES_DROPPED)).isEqualTo(7.0);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains(HostMetrics.PROCESS_RSS.name());

        for (int minute = 1; minute <= 59; minute++) {
            clock.advance(Duration.ofMinutes(1));
            hub.publish("p", many);
        }
        assertThat(warnings).hasSize(1);
        clock.advance(Duration.ofMinutes(1));
        hub.publish("p", many);
        assertThat(warnings).hasSize(2);
        assertThat(hub.droppedSeries()).isEqualTo(7);

        // Series that leave and come back over the bound are dropped anew.
        hub.publish("p", many.subList(0, 3));
        hub.publish("p", many);
        assertThat(hub.droppedSeries()).isEqualTo(14);

        // Many distinct dropped series, published again and again, still count once each.
        List<Point> lots = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            lots.add(Point.of(HostMetrics.PROCESS_RSS, i, AttrKeys.ENGINE, "x" + i));
        }
        for (int round = 0; round < 20; round++) {
            hub.publish("p", lots);
        }
        assertThat(hub.droppedSeries()).isEqualTo(14 + 10_000 - 3);
    }
}
