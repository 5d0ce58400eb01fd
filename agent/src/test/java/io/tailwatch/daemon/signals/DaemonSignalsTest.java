package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.json.Json;
import io.tailwatch.daemon.Daemon;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The daemon in-process with two loopback engines: their signals reach /metrics and /api/v1/status. */
class DaemonSignalsTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    static String get(Daemon d, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** The daemon's own probes feed the header-time estimate of an engine that exposes nothing. */
    @Test
    void theDaemonsProbesFeedTheHeaderTimeEstimate() throws Exception {
        try (io.tailwatch.tools.sim.EngineSimulator sim = io.tailwatch.tools.sim.EngineSimulator.start("openai", "127.0.0.1", 0,
                io.tailwatch.tools.sim.SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(20), 200))) {
            String yaml = "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\n  timeout: 2s\nengines:\n"
                    + "  - name: sim\n    api: openai\n    url: http://127.0.0.1:" + sim.port() + "\n"
                    + "    signals: {interval: 2s}\n"
                    + "    scenarios: [{name: interactive, interval: 2s, max_tokens: 4,"
                    + " timeouts: {connect: 1s, first_token: 1500ms, total: 1500ms}}]\n";
            try (Daemon d = new Daemon(Config.parse(yaml, "test", Map.of()), Map.of(), List.of()).start()) {
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(get(d, "/metrics"))
                        .contains("tailwatch_engine_queue_wait_seconds{tailwatch_engine_name=\"sim\",tailwatch_queue_wait_source=\"estimate\"}")
                        .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"sim\",tailwatch_engine_signal_source=\"header_estimate\"} 1.0"));
                assertThat(get(d, "/metrics")).doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"sim\"");
            }
        }
    }

    @Test
    void signalsOfEachEngineArePublishedAndABrokenOneDoesNotDisturbTheOther() throws Exception {
        try (FakeEngine llama = new FakeEngine(); FakeEngine broken = new FakeEngine()) {
            llama.prometheus("/metrics", FakeEngine.resource("llamacpp-metrics.txt"))
                    .json("/slots", FakeEngine.resource("llamacpp-slots.json"));
            // Pinned to vllm, but what it serves is not Prometheus text.
            broken.answer("/metrics", 200, "text/plain", "vllm:num_requests_running{model_name=\"x\" oops\n");
            String yaml = "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\n  timeout: 2s\nengines:\n"
                    + "  - name: llama\n    api: openai\n    url: " + llama.url() + "\n    signals: {interval: 1s}\n"
                    + "  - name: broken\n    api: openai\n    url: " + broken.url() + "\n"
                    + "    signals: {source: vllm, interval: 1s}\n";
            Config config = Config.parse(yaml, "test", Map.of());
            try (Daemon d = new Daemon(config, Map.of(), List.of()).start()) {
                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                    String m = get(d, "/metrics");
                    assertThat(m).contains("tailwatch_engine_requests{tailwatch_engine_name=\"llama\",tailwatch_engine_request_state=\"running\",tailwatch_engine_requests_source=\"engine\"} 2.0")
                            .contains("tailwatch_engine_requests{tailwatch_engine_name=\"llama\",tailwatch_engine_request_state=\"waiting\",tailwatch_engine_requests_source=\"engine\"} 5.0")
                            .contains("tailwatch_engine_kv_cache_usage_ratio{tailwatch_engine_name=\"llama\"} 0.3125")
                            .contains("tailwatch_engine_signal_failures_total{error_type=\"malformed\",tailwatch_engine_name=\"broken\","
                                    + "tailwatch_engine_signal_source=\"prometheus\"}");
                });
                String m = get(d, "/metrics");
                assertThat(m).doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"broken\"")
                        .doesNotContain("tailwatch_engine_queue_wait_seconds{tailwatch_engine_name=\"llama\"");
                // Our own exposition is valid input for our own parser.
                PrometheusTextParser.Exposition e = PrometheusTextParser.parse(m);
                assertThat(e.families().get("tailwatch_engine_requests").type()).isEqualTo("gauge");

                JsonNode full = Json.MAPPER.readTree(get(d, "/api/v1/status"));
                assertThat(full.has("engine_signals")).as("no duplicate top-level part").isFalse();
                JsonNode engines = full.get("engines");
                JsonNode l = engines.get(0).get("signals");
                assertThat(l.get("engine").asText()).isEqualTo("llama");
                assertThat(l.get("requests_waiting").asDouble()).isEqualTo(5.0);
                assertThat(l.get("sources").findValuesAsText("kind")).containsExactly("prometheus", "llamacpp_slots");
                assertThat(l.get("details").get("slots_total").asInt()).isEqualTo(3);
                assertThat(engines.get(0).get("name").asText()).isEqualTo("llama");
                JsonNode b = engines.get(1).get("signals");
                assertThat(b.get("configured_source").asText()).isEqualTo("vllm");
                assertThat(b.path("requests_running").isNumber()).as("unknown is left out, never 0").isFalse();
                assertThat(b.get("last_failure").get("error_type").asText()).isEqualTo("malformed");
                assertThat(b.get("last_failure").get("message").asText()).contains("/metrics").contains("line 1");
            }
        }
    }
}
