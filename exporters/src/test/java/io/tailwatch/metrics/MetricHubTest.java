package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricHubTest {
    /**
     * Two producers publish at once: the first one's delivery is held up inside a sink, the second publishes
     * the removal of the first one's series. Whatever the order of delivery, every sink ends with the newest
     * snapshot, so the removed series does not come back.
     */
    @Test
    void aSnapshotDeliveredLateNeverReplacesANewerOne() throws Exception {
        MetricHub hub = new MetricHub();
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<MetricSnapshot> last = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        hub.addSink(new MetricSink() {
            @Override
            public void onSnapshot(MetricSnapshot snapshot) {
                if (snapshot.value(HostMetrics.MEMORY_LIMIT) != null && first.compareAndSet(true, false)) {
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void onRecord(MetricDef histogram, Map<String, String> attributes, double value) {
            }
        });
        hub.addSink(new MetricSink() {
            @Override
            public void onSnapshot(MetricSnapshot snapshot) {
                last.set(snapshot);
            }

            @Override
            public void onRecord(MetricDef histogram, Map<String, String> attributes, double value) {
            }
        });
        Thread adds = new Thread(() -> hub.publish("p", List.of(Point.of(HostMetrics.MEMORY_LIMIT, 10))));
        adds.start();
        held.await();
        Thread removes = new Thread(() -> hub.publish("p", List.of()));
        removes.start();
        // The removal is either delivered already or waits for the held delivery to finish.
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                removes.getState() == Thread.State.BLOCKED || removes.getState() == Thread.State.TERMINATED);
        release.countDown();
        adds.join(10_000);
        removes.join(10_000);
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isNull();
        assertThat(last.get().value(HostMetrics.MEMORY_LIMIT)).as("the removed series, on the sink").isNull();
    }

    /** A series keeps one attribute map across its producer's publishes: the Prometheus collector finds its labels by it. */
    @Test
    void aSeriesKeepsItsAttributeMapFromPublishToPublish() {
        MetricHub hub = new MetricHub();
        hub.publish("p", List.of(Point.of(EngineMetrics.MODEL_CONTEXT, 1, AttrKeys.ENGINE, "e", AttrKeys.MODEL, "m")));
        Point first = hub.snapshot().byMetric().get(EngineMetrics.MODEL_CONTEXT.name()).get(0);
        hub.publish("p", List.of(Point.of(EngineMetrics.MODEL_CONTEXT, 2, AttrKeys.ENGINE, "e", AttrKeys.MODEL, "m2"),
                Point.of(EngineMetrics.MODEL_CONTEXT, 3, AttrKeys.ENGINE, "e", AttrKeys.MODEL, "m")));
        List<Point> now = hub.snapshot().byMetric().get(EngineMetrics.MODEL_CONTEXT.name());
        assertThat(now).extracting(Point::value).containsExactly(2.0, 3.0);
        assertThat(now.get(1).attributes()).isSameAs(first.attributes());
        assertThat(now.get(0).attributes()).isNotSameAs(first.attributes()).containsEntry(AttrKeys.MODEL, "m2");
    }

    @Test
    void pointsMustMatchTheirDeclaration() {
        MetricHub hub = new MetricHub();
        assertThatThrownBy(() -> hub.publish("x", List.of(Point.of(HostMetrics.PAGING_USAGE, 1, "system.paging.state", "weird"))))
                .hasMessageContaining("system.paging.state=weird is not one of [used, free]");
        assertThatThrownBy(() -> hub.publish("x", List.of(Point.of(HostMetrics.PAGING_USAGE, 1))))
                .hasMessageContaining("do not match the declaration");
        assertThatThrownBy(() -> hub.record(HostMetrics.POWER, Map.of(), 1)).hasMessageContaining("not a histogram");
    }

    @Test
    void refreshersPublishBeforeAReadAndOneThatThrowsStopsNeitherTheOthersNorTheRead() {
        MetricHub hub = new MetricHub();
        double[] limit = {10};
        Runnable broken = () -> {
            throw new IllegalStateException("broken producer");
        };
        Runnable good = () -> hub.publish("a", List.of(Point.of(HostMetrics.MEMORY_LIMIT, limit[0])));
        hub.refreshBeforeReads(broken);
        hub.refreshBeforeReads(good);
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isNull();
        long t = System.nanoTime();
        hub.refresh(t);
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isEqualTo(10.0);
        // Readers that come sooner than the refresh interval read what the last run published.
        limit[0] = 20;
        hub.refresh(t + MetricHub.REFRESH_EVERY_NANOS - 1);
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isEqualTo(10.0);
        hub.refresh(t + MetricHub.REFRESH_EVERY_NANOS);
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isEqualTo(20.0);
        hub.stopRefreshing(good);
        limit[0] = 30;
        hub.refresh(t + 3 * MetricHub.REFRESH_EVERY_NANOS);
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isEqualTo(20.0);
    }

    @Test
    void producersReplaceOnlyTheirOwnSeries() {
        MetricHub hub = new MetricHub();
        hub.publish("a", List.of(Point.of(HostMetrics.MEMORY_LIMIT, 10)));
        hub.publish("b", List.of(Point.of(HostMetrics.MEMORY_AVAILABLE, 5)));
        hub.publish("a", List.of());
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isNull();
        assertThat(hub.snapshot().value(HostMetrics.MEMORY_AVAILABLE)).isEqualTo(5.0);
    }

    @Test
    void seriesPerMetricAreBounded() {
        MetricHub hub = new MetricHub(Clock.systemUTC(), 3);
        List<Point> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            many.add(Point.of(HostMetrics.PROCESS_RSS, i, AttrKeys.ENGINE, "e" + i));
        }
        hub.publish("p", many);
        assertThat(hub.snapshot().of(HostMetrics.PROCESS_RSS)).hasSize(3);
        assertThat(hub.droppedSeries()).isEqualTo(7);
        assertThat(hub.snapshot().value(SelfMetrics.SERIES_DROPPED)).isEqualTo(7.0);
    }

    @Test
    void prometheusRemovesSeriesThatDisappearAndSpeaksOpenMetrics() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch", "host.name", "h\"1"));
        hub.publish("swap", List.of(Point.of(HostMetrics.PAGING_USAGE, 2147483648.0, "system.paging.state", "used")));
        String text = prom.scrape(null);
        assertThat(text).contains("system_paging_usage_bytes{system_paging_state=\"used\"} 2.147483648E9")
                .contains("target_info{host_name=\"h\\\"1\",service_name=\"tailwatch\"} 1");
        hub.publish("swap", List.of());
        assertThat(prom.scrape(null)).doesNotContain("system_paging_usage_bytes{");
        String om = prom.scrape("application/openmetrics-text; version=1.0.0");
        assertThat(om).endsWith("# EOF\n").contains("# TYPE target info");
        assertThat(prom.contentType("application/openmetrics-text")).startsWith("application/openmetrics-text");
        assertThat(prom.contentType("*/*")).startsWith("text/plain");
    }

    @Test
    void optionalAttributesAreEmptyLabelsInPrometheus() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of());
        Map<String, String> attrs = new java.util.HashMap<>(CatalogAgreementTest.sampleAttributes(ProbeMetrics.OPERATION_DURATION));
        hub.record(ProbeMetrics.OPERATION_DURATION, attrs, 0.7);
        attrs.put("error.type", "http_502");
        hub.record(ProbeMetrics.OPERATION_DURATION, attrs, 0.1);
        String text = prom.scrape(null);
        assertThat(text).contains("error_type=\"\"").contains("error_type=\"http_502\"")
                .contains("le=\"0.5\"").contains("le=\"1.0\"");
        // Sub-second values land in sub-second buckets: 0.1 s counts under le=0.16, 0.7 s only from le=1.0.
        assertThat(text).containsPattern("gen_ai_client_operation_duration_seconds_bucket\\{[^}]*error_type=\"http_502\"[^}]*le=\"0.16\"[^}]*} 1")
                .containsPattern("gen_ai_client_operation_duration_seconds_bucket\\{[^}]*error_type=\"\"[^}]*le=\"0.64\"[^}]*} 0")
                .containsPattern("gen_ai_client_operation_duration_seconds_bucket\\{[^}]*error_type=\"\"[^}]*le=\"1.0\"[^}]*} 1");
    }
}
