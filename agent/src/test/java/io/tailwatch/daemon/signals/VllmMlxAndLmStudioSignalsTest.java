package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.LmStudioWire;
import io.tailwatch.tools.sim.SimulatorOptions;
import io.tailwatch.tools.sim.VllmMlxWire;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The daemon in-process against the simulator's vllm-mlx and LM Studio 0.4 flavours: detection, the figures on
 * /metrics and in the status, what each count is measured from, and broken or out-of-range answers.
 */
class VllmMlxAndLmStudioSignalsTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** One request holds a slot for 40 tokens at 20 tokens/s: 2 s. */
    private static final String SLOW = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":40}";

    static EngineSimulator sim(String flavor, int slots) throws Exception {
        return EngineSimulator.start("openai", flavor, "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withTiming(Duration.ofMillis(20), 20).withSlots(slots));
    }

    static Daemon daemon(EngineSimulator sim, String name, boolean proxy) throws Exception {
        return daemon(sim, name, proxy, "1s");
    }

    /** Reads every {@code interval}, each under a deadline of half of it. */
    static Daemon daemon(EngineSimulator sim, String name, boolean proxy, String interval) throws Exception {
        return daemon(sim.port(), name, proxy, interval);
    }

    /** The daemon watching the engine on loopback {@code port}. */
    static Daemon daemon(int port, String name, boolean proxy, String interval) throws Exception {
        return new Daemon(Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n  - name: " + name
                + "\n    api: openai\n    url: http://127.0.0.1:" + port + "\n    scenarios: []\n"
                + "    health: {interval: 1h}\n    signals: {interval: " + interval + "}\n"
                + (proxy ? "    proxy: {listen: 127.0.0.1:0}\n" : ""), "test", Map.of()), Map.of(), List.of()).start();
    }

    static String get(Daemon d, String path) throws Exception {
        return DaemonSignalsTest.get(d, path);
    }

    static JsonNode signals(Daemon d) throws Exception {
        return Json.MAPPER.readTree(get(d, "/api/v1/status")).get("engines").get(0).get("signals");
    }

    static List<CompletableFuture<HttpResponse<String>>> post(int port, int n) {
        List<CompletableFuture<HttpResponse<String>>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(SLOW)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        return out;
    }

    static String requests(String engine, String state, String source, double v) {
        return "tailwatch_engine_requests{tailwatch_engine_name=\"" + engine + "\",tailwatch_engine_request_state=\"" + state
                + "\",tailwatch_engine_requests_source=\"" + source + "\"} " + v;
    }

    @Test
    void vllmMlxIsReadFromItsMetricsAndStatusWithItsSchedulerCountsAndMetalMemory() throws Exception {
        try (EngineSimulator sim = sim("vllm_mlx", 1); Daemon d = daemon(sim, "vmlx", false)) {
            // Three 2 s requests on one slot: one runs, two wait, for 2 s.
            List<CompletableFuture<HttpResponse<String>>> load = post(sim.port(), 3);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains(requests("vmlx", "running", "engine", 1.0))
                    .contains(requests("vmlx", "waiting", "engine", 2.0))
                    .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"vmlx\",tailwatch_engine_signal_source=\"prometheus\"} 1.0")
                    .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"vmlx\",tailwatch_engine_signal_source=\"vllm_mlx_status\"} 1.0"));
            JsonNode s = signals(d);
            assertThat(s.get("families").findValuesAsText("")).isEmpty();
            assertThat(s.get("families").toString()).contains("vllm_mlx");
            JsonNode details = s.get("details");
            // 4.62 GB as mlx reports it, written by the server as bytes (x 1e9)
            assertThat(details.get("metal_memory_bytes").get("active").asDouble()).isEqualTo(4.62e9);
            assertThat(details.get("metal_memory_bytes").get("peak").asDouble()).isEqualTo(5.1e9);
            assertThat(details.get("cache").get("hit_rate").asDouble()).isEqualTo(0.625);
            assertThat(details.get("engine_type").asText()).isEqualTo("batched");
            assertThat(details.get("model_loaded").asBoolean()).isTrue();
            assertThat(s.has("failures") && s.get("failures").size() > 0).as("no failed reads: %s", s).isFalse();
            for (CompletableFuture<HttpResponse<String>> f : load) {
                assertThat(f.get().statusCode()).isEqualTo(200);
            }
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains(requests("vmlx", "waiting", "engine", 0.0)));
        }
    }

    @Test
    void vllmMlxWithoutMetricsOrWithoutAModelIsReadFromItsStatusAndUnknownIsNotZero() throws Exception {
        try (EngineSimulator sim = sim("vllm_mlx", 1); Daemon d = daemon(sim, "vmlx", false)) {
            VllmMlxWire wire = sim.wire(VllmMlxWire.class).metrics(false).modelLoaded(false);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"vmlx\",tailwatch_engine_signal_source=\"vllm_mlx_status\"} 1.0"));
            assertThat(get(d, "/metrics")).as("not_loaded: no counts, not 0")
                    .doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"vmlx\"")
                    .doesNotContain("tailwatch_engine_signal_source=\"prometheus\"");
            assertThat(signals(d).get("details").get("status").asText()).isEqualTo("not_loaded");
            wire.modelLoaded(true);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains(requests("vmlx", "running", "engine", 0.0)).contains(requests("vmlx", "waiting", "engine", 0.0)));
        }
    }

    @Test
    void brokenAndOutOfRangeVllmMlxAnswersAreClassifiedAndDropped() throws Exception {
        try (EngineSimulator sim = sim("vllm_mlx", 1); Daemon d = daemon(sim, "vmlx", false, "2s")) {
            VllmMlxWire wire = sim.wire(VllmMlxWire.class);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains(requests("vmlx", "waiting", "engine", 0.0)));
            long before = InputRange.rejected(VllmMlxFigures.SOURCE, "num_running");
            long hitRateBefore = InputRange.rejected(VllmMlxFigures.SOURCE, "hit_rate");
            // /metrics no longer Prometheus text; /v1/status with a negative count and a hit rate above 1.
            wire.answer("/metrics", 200, "text/plain; version=0.0.4", "vllm_mlx_scheduler_waiting_requests{ 3\n")
                    .answer("/v1/status", 200, "application/json", "{\"status\":\"running\",\"residency\":null,"
                            + "\"num_running\":-3,\"num_waiting\":7,\"cache\":{\"hit_rate\":1.5},"
                            + "\"metal\":{\"active_memory_gb\":2.0,\"peak_memory_gb\":2.5,\"cache_memory_gb\":0.1}}");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                String m = get(d, "/metrics");
                assertThat(m).contains("tailwatch_engine_signal_failures_total{error_type=\"malformed\",tailwatch_engine_name=\"vmlx\","
                                + "tailwatch_engine_signal_source=\"prometheus\"}")
                        .contains(requests("vmlx", "waiting", "engine", 7.0))
                        .doesNotContain("tailwatch_engine_request_state=\"running\"");
            });
            assertThat(InputRange.rejected(VllmMlxFigures.SOURCE, "num_running")).isGreaterThan(before);
            assertThat(InputRange.rejected(VllmMlxFigures.SOURCE, "hit_rate")).isGreaterThan(hitRateBefore);
            JsonNode details = signals(d).get("details");
            assertThat(details.has("cache")).as("a hit rate of 1.5 is dropped, not clamped").isFalse();
            assertThat(details.get("metal_memory_bytes").get("active").asDouble()).isEqualTo(2.0e9);
            assertThat(signals(d).get("last_failure").get("message").asText()).contains("/metrics").contains("line 1");
            // A count that is not a number is malformed; a body over the 4 MiB bound is over_limit: both classified.
            wire.answer("/v1/status", 200, "application/json", "{\"status\":\"running\",\"residency\":null,\"num_waiting\":\"many\"}");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains("tailwatch_engine_signal_failures_total{error_type=\"malformed\",tailwatch_engine_name=\"vmlx\","
                            + "tailwatch_engine_signal_source=\"vllm_mlx_status\"}")
                    .doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"vmlx\""));
            wire.answer("/v1/status", 200, "application/json", "{\"status\":\"running\",\"residency\":null,\"pad\":\""
                    + "x".repeat(4 << 20) + "\"}");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains("tailwatch_engine_signal_failures_total{error_type=\"over_limit\",tailwatch_engine_name=\"vmlx\","
                            + "tailwatch_engine_signal_source=\"vllm_mlx_status\"}"));
        }
    }

    @Test
    void lmStudioIsReadFromItsModelListAndTheProxysInFlightCountsAgainstItsParallelSlots() throws Exception {
        try (EngineSimulator sim = sim("lmstudio", 2); Daemon d = daemon(sim, "lms", true)) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"lms\",tailwatch_engine_signal_source=\"lmstudio_models\"} 1.0")
                    .contains(requests("lms", "running", "proxy", 0.0)).contains(requests("lms", "waiting", "proxy", 0.0)));
            JsonNode details = signals(d).get("details");
            assertThat(details.get("batch_size").asDouble()).isEqualTo(2.0);
            assertThat(details.get("loaded").get(0).get("context_length").asLong()).isEqualTo(LmStudioWire.CONTEXT_LENGTH);
            assertThat(details.get("loaded_instances").asInt()).as("the unloaded model and the embedding one are not counted").isEqualTo(1);
            // Three 2 s requests through the proxy against parallel 2: two run, one waits.
            List<CompletableFuture<HttpResponse<String>>> load = post(d.proxies().proxy("lms").port(), 3);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains(requests("lms", "running", "proxy", 2.0)).contains(requests("lms", "waiting", "proxy", 1.0)));
            for (CompletableFuture<HttpResponse<String>> f : load) {
                assertThat(f.get().statusCode()).isEqualTo(200);
            }
            // Unloaded: no instance, so no batch size, so no counts (absent, not the last ones, not 0).
            sim.wire(LmStudioWire.class).loaded(false);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"lms\""));
            sim.wire(LmStudioWire.class).answer("/api/v1/models", 200, "application/json", "{\"models\":{\"key\":\"x\"}}");
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                    .contains("tailwatch_engine_signal_failures_total{error_type=\"malformed\",tailwatch_engine_name=\"lms\","
                            + "tailwatch_engine_signal_source=\"lmstudio_models\"}"));
        }
    }

    @Test
    void withoutAProxyInFrontLmStudiosCountsAreUnknown() throws Exception {
        try (EngineSimulator sim = sim("lmstudio", 2); Daemon d = daemon(sim, "lms", false)) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(signals(d).path("details").path("batch_size")
                    .asDouble()).isEqualTo(2.0));
            assertThat(get(d, "/metrics")).doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"lms\"")
                    .doesNotContain("tailwatch_engine_queue_wait_seconds{tailwatch_engine_name=\"lms\"");
        }
    }

    @Test
    void enginesAutoFindsVllmMlxAndReadsItsOwnFigures() throws Exception {
        try (EngineSimulator sim = sim("vllm_mlx", 1)) {
            Config cfg = Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines: auto\ndiscovery:\n"
                    + "  well_known_ports: false\n  ports: [" + sim.port() + "]\n  interval: 30s\n", "test", Map.of());
            try (Daemon d = new Daemon(cfg, Map.of(), List.of()).start()) {
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                        .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"vllm-mlx\",tailwatch_engine_signal_source=\"vllm_mlx_status\"} 1.0")
                        .contains(requests("vllm-mlx", "waiting", "engine", 0.0)));
                JsonNode status = Json.MAPPER.readTree(get(d, "/api/v1/status"));
                assertThat(status.get("discovery").get("watching").get(0).asText()).isEqualTo("vllm-mlx");
            }
        }
    }

    @Test
    void aBatchingMlxLmServerGetsItsCountsFromTheProxyAgainstTheConfiguredBatchSize() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withTiming(Duration.ofMillis(20), 20).withBatching(2, List.of()))) {
            Config cfg = Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n  - name: mlx\n"
                    + "    api: openai\n    url: http://127.0.0.1:" + sim.port() + "\n    scenarios: []\n"
                    + "    health: {interval: 1h}\n    signals: {interval: 1s, batch_size: 2}\n    proxy: {listen: 127.0.0.1:0}\n",
                    "test", Map.of());
            try (Daemon d = new Daemon(cfg, Map.of(), List.of()).start()) {
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                        .contains(requests("mlx", "waiting", "proxy", 0.0)));
                List<CompletableFuture<HttpResponse<String>>> load = post(d.proxies().proxy("mlx").port(), 3);
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                        .contains(requests("mlx", "running", "proxy", 2.0)).contains(requests("mlx", "waiting", "proxy", 1.0)));
                JsonNode details = signals(d).get("details");
                assertThat(details.get("batch_size_from").asText()).isEqualTo("config");
                // No probe ran and the engine measures none: no queue wait is made up.
                assertThat(get(d, "/metrics")).doesNotContain("tailwatch_engine_queue_wait_seconds{tailwatch_engine_name=\"mlx\"");
                for (CompletableFuture<HttpResponse<String>> f : load) {
                    assertThat(f.get().statusCode()).isEqualTo(200);
                }
            }
        }
    }
}
