package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.MetricSink;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One engine watched against the simulator: published series, guardrails, windows and status. */
class EngineWatchTest {
    record Recorded(String metric, Map<String, String> attrs, double value) {
    }

    static final class Recorder implements MetricSink {
        final List<Recorded> events = new CopyOnWriteArrayList<>();

        @Override
        public void onSnapshot(MetricSnapshot snapshot) {
        }

        @Override
        public void onRecord(MetricDef def, Map<String, String> attributes, double value) {
            events.add(new Recorded(def.name(), attributes, value));
        }
    }

    static EngineConfig engine(String api, int port, String model) {
        var s = new EngineConfig.Scenario("interactive", Duration.ofSeconds(60), 64, 8, 0.0,
                Duration.ofSeconds(5), Duration.ofSeconds(10), true);
        return new EngineConfig("sim", api, URI.create("http://127.0.0.1:" + port), model, null, Duration.ofSeconds(15),
                Duration.ofSeconds(2), true, List.of(s), List.of(), null);
    }

    static HostSnapshot host(double availableBytes, double pressure) {
        return new HostSnapshot(Instant.now(), List.of(Point.of(HostMetrics.MEMORY_AVAILABLE, availableBytes),
                Point.of(HostMetrics.PRESSURE_LEVEL, pressure)), Map.of());
    }

    @Test
    void healthProbesAndWindowsReachTheHub() throws Exception {
        MetricHub hub = new MetricHub();
        Recorder rec = new Recorder();
        hub.addSink(rec);
        AtomicReference<HostSnapshot> snap = new AtomicReference<>(host(16.0 * (1L << 30), 0));
        // 8 tokens 20 ms apart: slow enough that a busy CPU does not deliver the whole stream in one read.
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(20), 50);
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, o)) {
            EngineWatch w = new EngineWatch(engine("ollama", sim.port(), null), hub, snap::get, Clock.systemUTC(), 100);
            w.checkHealth();
            MetricSnapshot s = hub.snapshot();
            assertThat(s.value(EngineMetrics.UP, AttrKeys.ENGINE, "sim")).isEqualTo(1.0);
            assertThat(s.value(EngineMetrics.INFO, AttrKeys.ENGINE, "sim", AttrKeys.ENGINE_VERSION, "0.12.6")).isEqualTo(1.0);
            assertThat(s.value(EngineMetrics.MODELS_LOADED, AttrKeys.ENGINE, "sim")).isEqualTo(1.0);
            assertThat(s.value(EngineMetrics.MODEL_CONTEXT, AttrKeys.MODEL, o.model())).isEqualTo(4096.0);
            // The simulator's expires_at is five minutes after its /api/ps answer.
            double unload = s.value(EngineMetrics.MODEL_UNLOAD_TIME, AttrKeys.MODEL, o.model());
            double now = System.currentTimeMillis() / 1000.0;
            assertThat(unload).isBetween(now + 240, now + 301);
            assertThat(EngineWatch.unixSeconds("2024-06-04T14:38:31.5-07:00")).isEqualTo(1717537111.5);
            assertThat(EngineWatch.unixSeconds("soon")).isNull();
            assertThat(s.value(EngineMetrics.KV_BYTES_PER_TOKEN, AttrKeys.MODEL, o.model())).isEqualTo(131072.0);
            assertThat(s.value(EngineMetrics.KV_CONTEXT_BYTES, AttrKeys.MODEL, o.model())).isEqualTo(131072.0 * 4096);
            assertThat(s.value(EngineMetrics.KV_HEADROOM, AttrKeys.MODEL, o.model())).isEqualTo(131072.0);
            assertThat(s.value(EngineMetrics.MODEL_MEMORY, AttrKeys.MODEL_MEMORY_KIND, "vram")).isPositive();

            for (int i = 0; i < 5; i++) {
                ProbeResult r = w.probe("interactive");
                assertThat(r.success()).as(String.valueOf(r.errorMessage())).isTrue();
            }
            s = hub.snapshot();
            String[] key = {AttrKeys.ENGINE, "sim", AttrKeys.MODEL, o.model(), AttrKeys.SCENARIO, "interactive"};
            assertThat(s.value(ProbeMetrics.WINDOW_SAMPLES, key)).isEqualTo(5.0);
            assertThat(s.value(ProbeMetrics.WINDOW_ERROR_RATIO, key)).isEqualTo(0.0);
            for (String q : List.of("p50", "p95", "p99")) {
                assertThat(s.value(ProbeMetrics.WINDOW_TTFT, AttrKeys.PERCENTILE, q, AttrKeys.SCENARIO, "interactive")).isBetween(0.02, 5.0);
                assertThat(s.value(ProbeMetrics.WINDOW_E2E, AttrKeys.PERCENTILE, q, AttrKeys.SCENARIO, "interactive")).isBetween(0.16, 5.0);
            }
            assertThat(s.value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "sim", AttrKeys.SCENARIO, "interactive")).isEqualTo(1.0);
            assertThat(s.value(ProbeMetrics.DECODE_RATE, AttrKeys.ENGINE, "sim", AttrKeys.SCENARIO, "interactive")).isBetween(10.0, 200.0);
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.operation.duration")).hasSize(5)
                    .allSatisfy(e -> {
                        assertThat(e.attrs()).containsEntry("gen_ai.provider.name", "ollama")
                                .containsEntry("gen_ai.request.model", o.model())
                                .containsEntry(AttrKeys.RESPONSE_MODEL, o.model())
                                .containsEntry("server.address", "127.0.0.1")
                                .doesNotContainKey("error.type");
                    });
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.token.usage")
                    && "output".equals(e.attrs().get("gen_ai.token.type"))).allSatisfy(e -> {
                        assertThat(e.value()).isEqualTo(8.0);
                        assertThat(e.attrs()).containsEntry(AttrKeys.TOKEN_SOURCE, "engine");
                    });
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.operation.time_per_output_chunk"))
                    .hasSize(5 * 7);

            snap.set(host(16.0 * (1L << 30), 2));
            assertThat(w.probe("interactive")).isNull();
            assertThat(hub.snapshot().value(ProbeMetrics.PROBES_SKIPPED, AttrKeys.SKIP_REASON, "memory_pressure_critical")).isEqualTo(1.0);

            @SuppressWarnings("unchecked")
            var status = (List<Map<String, Object>>) EngineStatus.of(List.of(w));
            assertThat(status.get(0)).containsEntry("up", true).containsEntry("version", "0.12.6");
            assertThat((Double) status.get(0).get("probe_duty_cycle")).isPositive();
        }
    }

    /** gen_ai_latest_experimental: the semantic-conventions-genai names only, token usage as counters and histograms. */
    @Test
    void theLatestGenAiNamesReplaceThe141OnesWhenOptedIn() throws Exception {
        MetricHub hub = new MetricHub();
        hub.genAiConventions(io.tailwatch.metrics.GenAiConventions.from("http,gen_ai_latest_experimental"));
        Recorder rec = new Recorder();
        hub.addSink(rec);
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(5), 50);
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, o)) {
            EngineWatch w = new EngineWatch(engine("ollama", sim.port(), null), hub, () -> host(16.0 * (1L << 30), 0),
                    Clock.systemUTC(), 100);
            w.checkHealth();
            for (int i = 0; i < 3; i++) {
                assertThat(w.probe("interactive").success()).isTrue();
            }
            assertThat(rec.events).extracting(Recorded::metric).doesNotContain("gen_ai.client.operation.duration",
                    "gen_ai.client.operation.time_to_first_chunk", "gen_ai.client.operation.time_per_output_chunk",
                    "gen_ai.client.token.usage");
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.inference.duration")).hasSize(3);
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.inference.time_to_first_chunk")).hasSize(3);
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.inference.time_per_output_chunk")).hasSize(3 * 7);
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.inference.operation.output_tokens"))
                    .hasSize(3).allSatisfy(e -> {
                        assertThat(e.value()).isEqualTo(8.0);
                        assertThat(e.attrs()).doesNotContainKey(AttrKeys.TOKEN_TYPE).containsEntry(AttrKeys.TOKEN_SOURCE, "engine");
                    });
            // The counters: the running totals of the three probes, with the modality.
            MetricSnapshot s = hub.snapshot();
            assertThat(s.value(ProbeMetrics.USAGE_OUTPUT_TOKENS, AttrKeys.ENGINE, "sim", AttrKeys.TOKEN_MODALITY, "text",
                    AttrKeys.TOKEN_SOURCE, "engine")).isEqualTo(24.0);
            double inputOne = rec.events.stream().filter(e -> e.metric().equals("gen_ai.client.inference.operation.input_tokens"))
                    .findFirst().orElseThrow().value();
            assertThat(s.value(ProbeMetrics.USAGE_INPUT_TOKENS, AttrKeys.ENGINE, "sim")).isEqualTo(3 * inputOne);
        }
    }

    @Test
    void downEngineIsReportedDownAndProbesAreSkipped() throws Exception {
        MetricHub hub = new MetricHub();
        int port;
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"))) {
            port = sim.port();
        }
        EngineWatch w = new EngineWatch(engine("openai", port, "m"), hub, () -> HostSnapshot.EMPTY, Clock.systemUTC(), 100);
        w.checkHealth();
        assertThat(hub.snapshot().value(EngineMetrics.UP, AttrKeys.ENGINE, "sim")).isEqualTo(0.0);
        assertThat(hub.snapshot().of(EngineMetrics.MODELS_LOADED)).isEmpty();
        assertThat(w.health().error()).contains("/health");
        assertThat(w.probe("interactive")).isNull();
        assertThat(hub.snapshot().value(ProbeMetrics.PROBES_SKIPPED, AttrKeys.SKIP_REASON, "engine_down")).isEqualTo(1.0);
    }

    @Test
    void failedProbesCountInTheErrorRatioWithTheirType() throws Exception {
        MetricHub hub = new MetricHub();
        Recorder rec = new Recorder();
        hub.addSink(rec);
        SimulatorOptions o = SimulatorOptions.defaults("openai").withTiming(Duration.ZERO, 1000)
                .withFaults(1.0, 0, Duration.ZERO);
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o)) {
            EngineWatch w = new EngineWatch(engine("openai", sim.port(), null), hub, () -> HostSnapshot.EMPTY,
                    Clock.systemUTC(), 100);
            w.checkHealth();
            w.probe("interactive");
            w.probe("interactive");
            MetricSnapshot s = hub.snapshot();
            assertThat(s.value(ProbeMetrics.WINDOW_ERROR_RATIO, AttrKeys.SCENARIO, "interactive")).isEqualTo(1.0);
            assertThat(s.of(ProbeMetrics.WINDOW_E2E)).isEmpty();
            assertThat(s.value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.SCENARIO, "interactive")).isEqualTo(0.0);
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.operation.duration"))
                    .extracting(e -> e.attrs().get("error.type")).containsExactly("http_500", "http_500");
            assertThat(rec.events).filteredOn(e -> e.metric().equals("gen_ai.client.operation.duration"))
                    .allSatisfy(e -> assertThat(e.attrs()).containsEntry("gen_ai.provider.name", "mlx_lm"));
        }
    }

    @Test
    void aWindowWhoseModelIsNotProbedForTwoWindowAgesLeavesTheOutput() throws Exception {
        MetricHub hub = new MetricHub();
        AtomicReference<HostSnapshot> snap = new AtomicReference<>(host(16.0 * (1L << 30), 0));
        io.tailwatch.testing.SimClock clock = new io.tailwatch.testing.SimClock();
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(5), 500);
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, o)) {
            EngineConfig e = engine("ollama", sim.port(), null);
            EngineConfig.Scenario sc = e.scenarios().get(0);
            // A 10-minute window (the scenario's window setting).
            EngineConfig tenMinutes = new EngineConfig(e.name(), e.api(), e.url(), e.model(), e.apiKey(), e.healthInterval(),
                    e.healthTimeout(), e.skipWhenPressureCritical(), List.of(new EngineConfig.Scenario(sc.name(), sc.interval(),
                    sc.promptTokens(), sc.maxTokens(), sc.temperature(), sc.firstTokenTimeout(),
                    sc.totalTimeout(), sc.interactive(), Duration.ofMinutes(10))), e.processNames(), e.launchdLabel(), e.signals(),
                    e.connectTimeout());
            EngineWatch w = new EngineWatch(tenMinutes, hub, snap::get, clock, 100);
            w.checkHealth();
            assertThat(w.probe("interactive").success()).isTrue();
            String[] key = {AttrKeys.ENGINE, "sim", AttrKeys.MODEL, o.model(), AttrKeys.SCENARIO, "interactive"};
            assertThat(hub.snapshot().value(ProbeMetrics.WINDOW_SAMPLES, key)).isEqualTo(1.0);
            clock.advance(Duration.ofMinutes(11));
            w.publishProbes();
            // Empty for one window age: still there, with zero samples.
            assertThat(hub.snapshot().value(ProbeMetrics.WINDOW_SAMPLES, key)).isEqualTo(0.0);
            clock.advance(Duration.ofMinutes(10));
            w.publishProbes();
            assertThat(hub.snapshot().value(ProbeMetrics.WINDOW_SAMPLES, key)).isNull();
            assertThat(w.scenarioStates().get(0).windows).isEmpty();
        }
    }

    /**
     * An mlx_lm probe names no model; its window is kept under the model the server's command line serves, read
     * once a minute (a restart with another --model shows within a minute), and under unknown while none is told.
     */
    @Test
    void anUnnamedMlxLmProbeIsRecordedUnderTheServedModelReadOnceAMinute() throws Exception {
        MetricHub hub = new MetricHub();
        io.tailwatch.testing.SimClock clock = new io.tailwatch.testing.SimClock();
        SimulatorOptions o = SimulatorOptions.defaults("openai").withModel("/srv/models/Qwen3-0.6B-4bit")
                .withTiming(Duration.ofMillis(5), 500).withBatching(32, SimulatorOptions.DEFAULT_HUB_MODELS);
        try (EngineSimulator sim = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, o)) {
            EngineWatch w = new EngineWatch(engine("openai", sim.port(), null), hub, () -> HostSnapshot.EMPTY, clock, 100);
            java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
            AtomicReference<String> served = new AtomicReference<>();
            w.serverModel(() -> {
                reads.incrementAndGet();
                return served.get();
            });
            w.checkHealth();
            assertThat(w.probe("interactive").success()).isTrue();
            assertThat(windowModels(hub)).containsExactly(io.tailwatch.core.probe.EngineClient.UNKNOWN_MODEL);
            served.set("Qwen3-0.6B-4bit");
            clock.advance(Duration.ofSeconds(30));
            assertThat(w.probe("interactive").success()).isTrue();
            assertThat(reads.get()).as("not read again within the minute").isEqualTo(1);
            clock.advance(Duration.ofSeconds(31));
            assertThat(w.probe("interactive").success()).isTrue();
            assertThat(reads.get()).isEqualTo(2);
            assertThat(windowModels(hub)).contains("Qwen3-0.6B-4bit")
                    .doesNotContain(io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL);
            assertThat(sim.requests()).isNotEmpty().allSatisfy(b -> assertThat(b.has("model")).isFalse());
            // Down and back (a restart may serve another --model): read again at once, within the minute.
            int port = sim.port();
            sim.close();
            assertThat(w.checkHealth().up()).isFalse();
            served.set("Llama-3.2-1B-4bit");
            try (EngineSimulator again = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", port, o)) {
                assertThat(w.checkHealth().up()).isTrue();
                assertThat(w.probe("interactive").success()).isTrue();
                assertThat(reads.get()).isEqualTo(3);
                assertThat(windowModels(hub)).contains("Llama-3.2-1B-4bit");
            }
        }
    }

    private static List<String> windowModels(MetricHub hub) {
        return hub.snapshot().of(ProbeMetrics.WINDOW_SAMPLES).stream().map(p -> p.attributes().get(AttrKeys.MODEL)).toList();
    }

    @Test
    void theUpLogLineNamesTheVersionOnlyWhenKnownWithoutATrailingBlank() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(EngineWatch.upText(new io.tailwatch.core.probe.EngineHealth(t, true, false, null, "llama_cpp", List.of(),
                true, null))).isEqualTo("llama_cpp");
        assertThat(EngineWatch.upText(new io.tailwatch.core.probe.EngineHealth(t, true, false, "b11669-Debian", "llama_cpp",
                List.of(), true, null))).isEqualTo("llama_cpp b11669-Debian");
    }
}
