package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.metrics.ProxyMetrics;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The daemon in-process against the simulator's mlx_lm.server of 0.28 and later (batching by model string, a
 * Hugging Face cache in /v1/models, /health ok while loading, HTTP/1.0): the agent must not disturb it nor
 * misread it.
 */
class TodaysMlxLmServerTest {
    static final String SERVED = "/Users/me/models/Sim-Llama-3-8B-4bit";
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    static EngineSimulator mlx(List<String> hub, Duration load) throws Exception {
        return EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withModel(SERVED).withTiming(Duration.ofMillis(30), 200).withLoadTime(load).withBatching(32, hub));
    }

    static Daemon daemon(EngineSimulator sim, String timeouts, boolean proxy) throws Exception {
        return daemon(sim.port(), timeouts, proxy);
    }

    static Daemon daemon(int port, String timeouts, boolean proxy) throws Exception {
        return new Daemon(Config.parse("server:\n  listen: 127.0.0.1:0\nengines:\n  - name: mlx\n    api: openai\n"
                + "    url: http://127.0.0.1:" + port + "\n    health:\n      interval: 1s\n"
                + "    signals:\n      source: none\n"
                + (proxy ? "    proxy:\n      listen: 127.0.0.1:0\n" : "")
                + "    scenarios:\n      - name: interactive\n        interval: 1500ms\n        prompt_tokens: 16\n"
                + "        max_tokens: 8\n        timeouts: " + timeouts + "\n", "test", Map.of()), Map.of(), List.of()).start();
    }

    static MetricSnapshot snap(Daemon d) {
        return d.hub().snapshot();
    }

    static List<JsonNode> chats(EngineSimulator sim) {
        return sim.requests().stream().filter(n -> n.has("messages")).toList();
    }

    @Test
    void probesNameNoCachedModelAndReadTheVersionFromTheFingerprint() throws Exception {
        try (EngineSimulator sim = mlx(SimulatorOptions.DEFAULT_HUB_MODELS, Duration.ZERO);
             Daemon d = daemon(sim, "{first_token: 1s, total: 1200ms}", false)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> chats(sim).size() >= 2 && Double.valueOf(1.0)
                    .equals(snap(d).value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "mlx")));
            // No probe named one of the cached models: the server never swapped.
            assertThat(sim.modelLoads()).isZero();
            assertThat(sim.currentModel()).isEqualTo(SERVED);
            assertThat(chats(sim)).allSatisfy(b -> assertThat(b.has("model")).as(b.toString()).isFalse());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(snap(d).of(EngineMetrics.INFO))
                    .extracting(p -> p.attributes().get(AttrKeys.ENGINE_VERSION))
                    .containsExactly("0.32.0 (mlx 0.32.1, applegpu_g15s)"));
            // Its list is its cache, not what it holds: listed, loaded unknown.
            assertThat(snap(d).value(EngineMetrics.MODELS_LISTED, AttrKeys.ENGINE, "mlx")).isEqualTo(4.0);
            assertThat(snap(d).value(EngineMetrics.MODELS_LOADED, AttrKeys.ENGINE, "mlx")).isNull();
            // Its headers come at admission into the batch: time to headers is no queue wait, and none is estimated.
            assertThat(d.engines().watch("mlx").headersAtAdmission()).isTrue();
            io.tailwatch.daemon.signals.HeaderTimeEstimate estimate = new io.tailwatch.daemon.signals.HeaderTimeEstimate(
                    Duration.ofMinutes(5), java.time.Clock.systemUTC());
            java.util.concurrent.atomic.AtomicReference<io.tailwatch.core.probe.ProbeResult> probe =
                    new java.util.concurrent.atomic.AtomicReference<>();
            // null while the daemon's own probe is in flight (skipped: in_flight)
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.updateAndGet(
                    p -> p != null ? p : d.engines().watch("mlx").probe("interactive")) != null);
            assertThat(probe.get().timeToHeadersSeconds()).isNotNull();
            estimate.onProbe(probe.get(), d.engines().watch("mlx").headersAtAdmission());
            assertThat(estimate.last()).isNull();
            assertThat(estimate.read(Duration.ofSeconds(1)).details().get("estimate_note").toString())
                    .contains("admits a request into its batch");
        }
    }

    @Test
    void anEmptyModelListIsModelsUnknownNotDown() throws Exception {
        try (EngineSimulator sim = mlx(null, Duration.ZERO);
             Daemon d = daemon(sim, "{first_token: 1s, total: 1200ms}", false)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> Double.valueOf(1.0)
                    .equals(snap(d).value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "mlx")));
            assertThat(snap(d).value(EngineMetrics.UP, AttrKeys.ENGINE, "mlx")).isEqualTo(1.0);
            assertThat(d.engines().watch("mlx").state()).isEqualTo("up");
            assertThat(snap(d).value(EngineMetrics.MODELS_LISTED, AttrKeys.ENGINE, "mlx")).isNull();
            assertThat(snap(d).value(EngineMetrics.MODELS_LOADED, AttrKeys.ENGINE, "mlx")).isNull();
            assertThat(chats(sim)).isNotEmpty().allSatisfy(b -> assertThat(b.has("model")).isFalse());
        }
    }

    @Test
    void whileTheModelLoadsTheEngineIsLoadingAndItsProbesStayOutOfTheWindows() throws Exception {
        try (EngineSimulator sim = mlx(SimulatorOptions.DEFAULT_HUB_MODELS, Duration.ofMillis(4500));
             Daemon d = daemon(sim, "{first_token: 800ms, total: 1s}", false)) {
            await().atMost(Duration.ofSeconds(4)).until(() -> "loading".equals(d.engines().watch("mlx").state()));
            assertThat(snap(d).value(EngineMetrics.LOADING, AttrKeys.ENGINE, "mlx")).isEqualTo(1.0);
            assertThat(snap(d).value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "mlx")).isNull();
            // After the load: up, and the window holds only answers that did not wait for the load.
            await().atMost(Duration.ofSeconds(20)).until(() -> Double.valueOf(1.0)
                    .equals(snap(d).value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "mlx")));
            assertThat(snap(d).value(EngineMetrics.LOADING, AttrKeys.ENGINE, "mlx")).isEqualTo(0.0);
            assertThat(d.engines().watch("mlx").state()).isEqualTo("up");
            assertThat(snap(d).value(ProbeMetrics.WINDOW_ERROR_RATIO, AttrKeys.ENGINE, "mlx")).isEqualTo(0.0);
            Double p99 = snap(d).value(ProbeMetrics.WINDOW_TTFT, io.tailwatch.metrics.AttrValues.Percentile.P99,
                    AttrKeys.ENGINE, "mlx");
            assertThat(p99).isNotNull().isLessThan(0.8);
        }
    }

    @Test
    void probesUseTheTrafficsModelStringAndTheProxyCountsACutStreamAsCut() throws Exception {
        try (EngineSimulator sim = mlx(SimulatorOptions.DEFAULT_HUB_MODELS, Duration.ZERO);
             Daemon d = daemon(sim, "{first_token: 1s, total: 1200ms}", true)) {
            int port = d.proxies().proxy("mlx").port();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = post(port, "{\"model\":\"" + SERVED + "\",\"messages\":[{\"role\":\"user\","
                        + "\"content\":\"hello\"}],\"max_tokens\":4,\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
                assertThat(r.body()).endsWith("data: [DONE]\n\n");
            }
            // A non-streamed answer: its headers come with its end, so it holds no queue wait.
            post(port, "{\"model\":\"" + SERVED + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":500}");
            // mlx_lm raises on "stream_options": {} after the finish chunk: the stream closes without [DONE].
            HttpResponse<String> cut = post(port, "{\"model\":\"" + SERVED + "\",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"hello\"}],\"max_tokens\":4,\"stream\":true,\"stream_options\":{}}");
            assertThat(cut.statusCode()).isEqualTo(200);
            assertThat(cut.body()).doesNotContain("[DONE]");
            int before = sim.requests().size();
            await().atMost(Duration.ofSeconds(10)).until(() -> sim.requests().size() > before + 1);
            d.proxies().publish();
            MetricSnapshot s = snap(d);
            assertThat(s.value(ProxyMetrics.REQUESTS, ProxyOutcome.CUT, AttrKeys.ENGINE, "mlx")).isEqualTo(1.0);
            assertThat(s.value(ProxyMetrics.REQUESTS, ProxyOutcome.OK, AttrKeys.ENGINE, "mlx")).isEqualTo(4.0);
            // The probes after the traffic name the traffic's string: same batch, no swap.
            List<JsonNode> all = chats(sim);
            JsonNode lastProbe = all.get(all.size() - 1);
            assertThat(lastProbe.path("model").asText()).isEqualTo(SERVED);
            assertThat(sim.modelLoads()).isZero();
            // The queue-wait window holds the streams only, not the whole answer's 2.5 s of generation before its headers.
            Double wait = s.value(ProxyMetrics.LANE_WINDOW_QUEUE_WAIT, AttrKeys.ENGINE, "mlx");
            assertThat(wait).isNotNull().isLessThan(2.0);
        }
    }

    @Test
    void livenessIsItsHealthAndItsCostlyModelListIsReadOnceAMinute() throws Exception {
        try (EngineSimulator sim = mlx(SimulatorOptions.DEFAULT_HUB_MODELS, Duration.ZERO);
             Daemon d = daemon(sim, "{first_token: 1s, total: 1200ms}", false)) {
            // Health every second and a probe every 1.5 s: each would list the cache without the bound.
            await().atMost(Duration.ofSeconds(30)).until(() -> sim.hits("/health") >= 8 && chats(sim).size() >= 3);
            assertThat(snap(d).value(EngineMetrics.UP, AttrKeys.ENGINE, "mlx")).isEqualTo(1.0);
            assertThat(sim.hits("/v1/models")).as("/v1/models scans the Hugging Face cache; /health is asked %s times",
                    sim.hits("/health")).isBetween(1L, 2L);
            assertThat(snap(d).value(EngineMetrics.MODELS_LISTED, AttrKeys.ENGINE, "mlx")).isEqualTo(4.0);
        }
    }

    @Test
    void withItsDecodeConcurrencyAsBatchSizeTheProxyCountsRunningAndWaiting() throws Exception {
        // Two at once (--decode-concurrency 2); 40 tokens at 20 tokens/s hold a place for 2 s.
        try (EngineSimulator sim = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withModel(SERVED).withTiming(Duration.ofMillis(30), 20).withBatching(2, SimulatorOptions.DEFAULT_HUB_MODELS));
             Daemon d = new Daemon(Config.parse("server:\n  listen: 127.0.0.1:0\nengines:\n  - name: mlx\n    api: openai\n"
                     + "    url: http://127.0.0.1:" + sim.port() + "\n    health: {interval: 1s}\n"
                     + "    signals: {interval: 1s, batch_size: 2}\n    proxy: {listen: 127.0.0.1:0}\n    scenarios: []\n",
                     "test", Map.of()), Map.of(), List.of()).start()) {
            int port = d.proxies().proxy("mlx").port();
            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> load = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                load.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                        .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + SERVED + "\",\"messages\":[{\"role\":"
                                + "\"user\",\"content\":\"hi\"}],\"max_tokens\":40,\"stream\":true}")).build(),
                        HttpResponse.BodyHandlers.ofString()));
            }
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                MetricSnapshot s = snap(d);
                assertThat(s.value(io.tailwatch.metrics.EngineSideMetrics.REQUESTS, io.tailwatch.metrics.AttrValues.RequestState.RUNNING,
                        AttrKeys.ENGINE, "mlx", AttrKeys.REQUESTS_SOURCE, "proxy")).isEqualTo(2.0);
                assertThat(s.value(io.tailwatch.metrics.EngineSideMetrics.REQUESTS, io.tailwatch.metrics.AttrValues.RequestState.WAITING,
                        AttrKeys.ENGINE, "mlx", AttrKeys.REQUESTS_SOURCE, "proxy")).isEqualTo(1.0);
            });
            for (java.util.concurrent.CompletableFuture<HttpResponse<String>> f : load) {
                assertThat(f.get().statusCode()).isEqualTo(200);
            }
            assertThat(sim.maxConcurrent()).as("the engine itself ran two at once").isEqualTo(2);
            // Nothing in flight: none running, none waiting (counted, so 0, not absent).
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(snap(d).value(
                    io.tailwatch.metrics.EngineSideMetrics.REQUESTS, io.tailwatch.metrics.AttrValues.RequestState.WAITING,
                    AttrKeys.ENGINE, "mlx", AttrKeys.REQUESTS_SOURCE, "proxy")).isEqualTo(0.0));
        }
    }

    static HttpResponse<String> post(int port, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

}
