package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Detection from what a loopback engine answers, pinning, and the per-engine watch publishing to the hub. */
class SignalDetectionTest {
    static final Duration DEADLINE = Duration.ofSeconds(3);
    FakeEngine engine;

    @BeforeEach
    void start() throws IOException {
        engine = new FakeEngine();
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    static EngineConfig.Signals pinned(String source) {
        return new EngineConfig.Signals(io.tailwatch.core.config.SignalSourceSetting.of(source), "queue_size",
                Duration.ofSeconds(15));
    }

    SignalDetector.Detection detect(String source) {
        return SignalDetector.detect(engine.endpoint(), pinned(source), new HeaderTimeEstimate(Duration.ofMinutes(3),
                Clock.systemUTC()), DEADLINE);
    }

    static List<String> kinds(SignalDetector.Detection d) {
        return d.sources().stream().map(EngineSignalSource::kind).toList();
    }

    @Test
    void llamaCppWithMetricsAndSlotsUsesBoth() {
        engine.prometheus("/metrics", FakeEngine.resource("llamacpp-metrics.txt"))
                .json("/slots", FakeEngine.resource("llamacpp-slots.json"));
        SignalDetector.Detection d = detect("auto");
        assertThat(d.decided()).isTrue();
        assertThat(kinds(d)).containsExactly("prometheus", "llamacpp_slots");
        assertThat(d.families()).containsExactly("llamacpp");
    }

    @Test
    void llamaCppWithoutMetricsFlagIsFoundByItsSlots() {
        engine.json("/slots", FakeEngine.resource("llamacpp-slots-old.json"));
        SignalDetector.Detection d = detect("auto");
        assertThat(kinds(d)).containsExactly("llamacpp_slots");
        assertThat(d.note()).contains("/metrics: http_404");
    }

    @Test
    void vllmIsReadFromMetricsAndSlotsIsNotAsked() {
        engine.prometheus("/metrics", FakeEngine.resource("vllm-metrics.txt"));
        SignalDetector.Detection d = detect("auto");
        assertThat(kinds(d)).containsExactly("prometheus");
        assertThat(d.families()).containsExactly("vllm");
        assertThat(engine.requested).containsExactly("/metrics");
    }

    @Test
    void mlxVlmIsRecognisedByItsJsonMetrics() {
        engine.json("/metrics", FakeEngine.resource("mlx-vlm-metrics.json"))
                .json("/health", "{\"status\":\"healthy\",\"loaded_model\":\"x\"}");
        assertThat(kinds(detect("auto"))).containsExactly("mlx_vlm_json");
    }

    @Test
    void aHealthEndpointWithTheQueueFieldIsUsedWhenNothingElseIs() {
        engine.json("/health", FakeEngine.resource("healthz-queue.json"));
        SignalDetector.Detection d = detect("auto");
        assertThat(kinds(d)).containsExactly("health_queue");
        assertThat(d.sources().get(0).describe()).isEqualTo("GET /health field queue_size");
    }

    @Test
    void anEngineExposingNothingFallsBackToTheHeaderEstimate() {
        engine.answer("/", 200, "text/plain; charset=utf-8", "Ollama is running")
                .json("/health", "{\"status\":\"ok\"}");
        SignalDetector.Detection d = detect("auto");
        assertThat(kinds(d)).containsExactly("header_estimate");
        assertThat(d.onlyEstimate()).isTrue();
        assertThat(d.note()).contains("estimated from probe header time");
    }

    @Test
    void anUnreachableEngineIsNotDecided() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        SignalDetector.Detection d = SignalDetector.detect(new EngineEndpoint(URI.create("http://127.0.0.1:" + port), null,
                Duration.ofSeconds(1)), pinned("auto"), new HeaderTimeEstimate(Duration.ofMinutes(3), Clock.systemUTC()),
                DEADLINE);
        assertThat(d.decided()).isFalse();
        assertThat(d.sources()).isEmpty();
        assertThat(d.note()).contains("not reachable");
    }

    @Test
    void aSlowEngineIsAskedAgainRatherThanSettledOnTheEstimate() {
        engine.slow("/metrics", Duration.ofSeconds(2)).slow("/slots", Duration.ofSeconds(2));
        SignalDetector.Detection d = SignalDetector.detect(engine.endpoint(), pinned("auto"),
                new HeaderTimeEstimate(Duration.ofMinutes(3), Clock.systemUTC()), Duration.ofMillis(300));
        assertThat(d.decided()).isFalse();
        assertThat(d.note()).contains("slow to answer").contains("/metrics: timeout");
    }

    @Test
    void aPinnedSourceIsUsedWithoutGuessing() {
        assertThat(kinds(detect("vllm"))).containsExactly("prometheus");
        assertThat(kinds(detect("mlx_vlm"))).containsExactly("mlx_vlm_json");
        assertThat(kinds(detect("header_estimate"))).containsExactly("header_estimate");
        assertThat(detect("none").sources()).isEmpty();
        assertThat(engine.requested).as("pinned vllm, mlx_vlm, header_estimate and none ask nothing").isEmpty();
        SignalDetector.Detection llama = detect("llamacpp");
        assertThat(kinds(llama)).as("neither answers: /slots is read anyway so its failures show")
                .containsExactly("llamacpp_slots");
        engine.json("/health", FakeEngine.resource("healthz-queue.json"));
        assertThat(detect("health_queue").sources().get(0).describe()).isEqualTo("GET /health field queue_size");
    }

    @Test
    void everySettingOfTheListIsDecidedAgainstAnEngineThatAnswers() {
        // The one list of signals.source values: each is read by the detector (the switch has no default),
        // and every pinned one settles at once on an engine that answers, whatever it answers.
        for (io.tailwatch.core.config.SignalSourceSetting s : io.tailwatch.core.config.SignalSourceSetting.values()) {
            SignalDetector.Detection d = SignalDetector.detect(engine.endpoint(),
                    new EngineConfig.Signals(s, "queue_size", Duration.ofSeconds(15)),
                    new HeaderTimeEstimate(Duration.ofMinutes(3), Clock.systemUTC()), DEADLINE);
            assertThat(d.decided()).as(s.configName()).isTrue();
            assertThat(d.note()).as(s.configName()).isNotBlank();
            assertThat(d.sources().isEmpty()).as(s.configName()).isEqualTo(s == io.tailwatch.core.config.SignalSourceSetting.NONE);
        }
    }

    // ---- the watch ----

    static final class MutableClock extends Clock {
        volatile Instant now = Instant.parse("2026-01-01T00:00:00Z");

        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        public Instant instant() {
            return now;
        }
    }

    EngineConfig config(String signals) throws Exception {
        return Config.parse("engines:\n  - name: e1\n    api: openai\n    url: " + engine.url() + "\n    signals: "
                + signals + "\n", "test", Map.of()).engines().get(0);
    }

    static List<Point> of(MetricSnapshot s, io.tailwatch.metrics.MetricDef def) {
        return s.of(def);
    }

    @Test
    void oneBrokenSourceLosesOnlyItsOwnFiguresAndIsCounted() throws Exception {
        engine.prometheus("/metrics", FakeEngine.resource("llamacpp-metrics.txt"))
                .json("/slots", FakeEngine.resource("llamacpp-slots.json"));
        MetricHub hub = new MetricHub();
        EngineSignalWatch w = new EngineSignalWatch(config("{interval: 2s}"), hub, Clock.systemUTC());
        w.poll();
        MetricSnapshot s = hub.snapshot();
        assertThat(s.value(EngineSideMetrics.REQUESTS, AttrKeys.ENGINE, "e1", AttrKeys.REQUEST_STATE, "waiting")).isEqualTo(5.0);
        assertThat(s.value(EngineSideMetrics.KV_CACHE_USAGE, AttrKeys.ENGINE, "e1")).isEqualTo(0.3125);

        engine.prometheus("/metrics", "llamacpp:requests_processing{ 2\n");
        w.poll();
        s = hub.snapshot();
        assertThat(s.value(EngineSideMetrics.REQUESTS, AttrKeys.ENGINE, "e1", AttrKeys.REQUEST_STATE, "running"))
                .as("from /slots").isEqualTo(2.0);
        assertThat(s.value(EngineSideMetrics.REQUESTS, AttrKeys.ENGINE, "e1", AttrKeys.REQUEST_STATE, "waiting")).as("unknown, not 0").isNull();
        assertThat(s.value(EngineSideMetrics.KV_CACHE_USAGE, AttrKeys.ENGINE, "e1")).isNull();
        assertThat(s.value(EngineSideMetrics.SIGNAL_FAILURES, AttrKeys.ENGINE, "e1", AttrKeys.SIGNAL_SOURCE, "prometheus",
                "error.type", "malformed")).isEqualTo(1.0);
        assertThat(s.value(EngineSideMetrics.SIGNAL_FAILURES, AttrKeys.ENGINE, "e1", AttrKeys.SIGNAL_SOURCE, "llamacpp_slots",
                "error.type", "malformed")).isNull();
        assertThat(w.state().lastFailure().source()).isEqualTo("prometheus");
        Map<String, Object> status = EngineSignalStatus.of(w);
        assertThat(status).containsEntry("requests_running", 2.0).containsEntry("requests_waiting", null)
                .containsEntry("failures", Map.of("prometheus", Map.of("malformed", 1L)));
    }

    @Test
    void anEngineExposingNothingPublishesNoFiguresUntilAProbeGivesAnEstimate() throws Exception {
        MetricHub hub = new MetricHub();
        MutableClock clock = new MutableClock();
        EngineSignalWatch w = new EngineSignalWatch(config("{interval: 2s}"), hub, clock);
        w.poll();
        MetricSnapshot s = hub.snapshot();
        assertThat(s.of(EngineSideMetrics.REQUESTS)).isEmpty();
        assertThat(s.of(EngineSideMetrics.KV_CACHE_USAGE)).isEmpty();
        assertThat(s.of(EngineSideMetrics.QUEUE_WAIT)).isEmpty();
        assertThat(s.value(EngineSideMetrics.SIGNAL_SOURCE, AttrKeys.ENGINE, "e1", AttrKeys.SIGNAL_SOURCE, "header_estimate"))
                .isEqualTo(1.0);

        w.onProbe(probe(clock.now, "m", 0.004, null));
        w.onProbe(probe(clock.now, "m", 0.904, null));
        assertThat(hub.snapshot().value(EngineSideMetrics.QUEUE_WAIT, AttrKeys.ENGINE, "e1", AttrKeys.QUEUE_WAIT_SOURCE, "estimate"))
                .isCloseTo(0.9, org.assertj.core.data.Offset.offset(1e-9));

        // The engine gains /metrics later; it is asked again after a while, not on every read.
        engine.prometheus("/metrics", FakeEngine.resource("vllm-metrics.txt"));
        w.poll();
        assertThat(w.state().detection().onlyEstimate()).isTrue();
        clock.now = clock.now.plus(EngineSignalWatch.REDETECT_WHEN_ESTIMATING);
        w.poll();
        assertThat(kinds(w.state().detection())).containsExactly("prometheus");
        s = hub.snapshot();
        assertThat(s.value(EngineSideMetrics.REQUESTS, AttrKeys.ENGINE, "e1", AttrKeys.REQUEST_STATE, "waiting")).isEqualTo(9.0);
        assertThat(s.of(EngineSideMetrics.QUEUE_WAIT)).as("the estimate is no longer the source").isEmpty();
        assertThat(s.value(EngineSideMetrics.SIGNAL_SOURCE, AttrKeys.ENGINE, "e1", AttrKeys.SIGNAL_SOURCE, "header_estimate")).isNull();
    }

    @Test
    void sourceNoneReadsNothingAndPublishesNothing() throws Exception {
        engine.prometheus("/metrics", FakeEngine.resource("vllm-metrics.txt"));
        MetricHub hub = new MetricHub();
        EngineSignalWatch w = new EngineSignalWatch(config("{source: none}"), hub, Clock.systemUTC());
        w.poll();
        assertThat(hub.snapshot().points()).noneMatch(p -> p.metric().name().startsWith("tailwatch.engine."));
        assertThat(engine.requested).isEmpty();
    }

    static ProbeResult probe(Instant at, String model, Double headers, Double load) {
        return new ProbeResult(true, null, null, at, model, headers, headers == null ? null : headers + 0.1, 1.0, 30.0,
                16L, 64L, "usage", null, null, null, load, List.of());
    }
}
