package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.LmStudioWire;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * LM Studio 0.4's native chat ({@code POST /api/v1/chat}) against the simulator's LM Studio flavour: the probe goes
 * through it and keeps the engine's own stats (its time to first token and tokens per second, its token counts)
 * beside the agent's wire measurement; the daemon exports them and leaves them out where an engine reports none;
 * out-of-range stats are dropped; the proxy counts a native chat stream that ends with {@code chat.end} as ok and
 * one without it as cut.
 */
class LmStudioNativeChatTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static ProbeRequest request() {
        return new ProbeRequest(null, 16, 6, 0.0, Duration.ofSeconds(5), Duration.ofSeconds(10));
    }

    @Test
    void theProbeUsesTheNativeChatAndKeepsTheEnginesOwnStats() throws Exception {
        try (EngineSimulator sim = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1);
             EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:" + sim.port()), null)) {
            assertThat(c.health(Duration.ofSeconds(5)).provider()).isEqualTo("lm_studio");
            ProbeResult r = c.probe(request());
            assertThat(r.success()).as(r.errorMessage()).isTrue();
            JsonNode sent = sim.requests().get(sim.requests().size() - 1);
            assertThat(sent.has("input")).as("the native chat's body: %s", sent).isTrue();
            assertThat(sent.get("store").asBoolean(true)).as("probes are not stored as chats").isFalse();
            assertThat(sent.get("max_output_tokens").asInt()).isEqualTo(6);
            JsonNode stats = sim.wire(LmStudioWire.class).lastStats();
            assertThat(r.serverTtftSeconds()).isEqualTo(stats.get("time_to_first_token_seconds").asDouble());
            assertThat(r.serverDecodeTokensPerSecond()).isEqualTo(stats.get("tokens_per_second").asDouble());
            assertThat(r.outputTokens()).isEqualTo(6L).isEqualTo(stats.get("total_output_tokens").asLong());
            assertThat(r.inputTokens()).isEqualTo(stats.get("input_tokens").asLong());
            assertThat(r.tokenSource()).isEqualTo("engine");
            assertThat(r.responseModel()).isEqualTo(sim.options().model());
            // The agent's own measurement stands beside it: first text at the wire, after the engine's first token.
            assertThat(r.ttftSeconds()).isNotNull();
            assertThat(r.figures()).containsEntry("server_ttft_seconds", r.serverTtftSeconds());
        }
    }

    @Test
    void anLmStudioWithoutTheNativeApiIsProbedThroughTheOpenAiRouteWithoutEngineStats() throws Exception {
        try (EngineSimulator sim = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1);
             EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:" + sim.port()), null)) {
            sim.wire(LmStudioWire.class).answer("/api/v1/models", 404, "application/json", "{\"error\":\"Unexpected endpoint\"}");
            assertThat(c.health(Duration.ofSeconds(5)).provider()).isEqualTo("lm_studio");
            ProbeResult r = c.probe(request());
            assertThat(r.success()).as(r.errorMessage()).isTrue();
            assertThat(sim.requests().get(sim.requests().size() - 1).has("messages")).isTrue();
            assertThat(sim.wire(LmStudioWire.class).lastStats()).isNull();
            assertThat(r.serverTtftSeconds()).as("unknown, not 0").isNull();
            assertThat(r.tokenSource()).isEqualTo("usage");
        }
    }

    @Test
    void outOfRangeStatsAreDroppedAndAStreamWithoutChatEndIsCut() throws Exception {
        try (EngineSimulator sim = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1);
             EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:" + sim.port()), null)) {
            c.health(Duration.ofSeconds(5));
            String head = "event: chat.start\ndata: {\"type\":\"chat.start\",\"model_instance_id\":\"m\"}\n\n"
                    + "event: message.delta\ndata: {\"type\":\"message.delta\",\"content\":\" one\"}\n\n"
                    + "event: message.delta\ndata: {\"type\":\"message.delta\",\"content\":\" two\"}\n\n";
            long rate = InputRange.rejected("lmstudio_chat", "tokens_per_second");
            long ttft = InputRange.rejected("lmstudio_chat", "time_to_first_token_seconds");
            sim.wire(LmStudioWire.class).answer("/api/v1/chat", 200, "text/event-stream", head
                    + "event: chat.end\ndata: {\"type\":\"chat.end\",\"result\":{\"model_instance_id\":\"m\",\"output\":[],"
                    + "\"stats\":{\"input_tokens\":9,\"total_output_tokens\":2,\"tokens_per_second\":-4.0,"
                    + "\"time_to_first_token_seconds\":1e9}}}\n\n");
            ProbeResult r = c.probe(request());
            assertThat(r.success()).as(r.errorMessage()).isTrue();
            assertThat(r.serverDecodeTokensPerSecond()).isNull();
            assertThat(r.serverTtftSeconds()).isNull();
            assertThat(r.outputTokens()).isEqualTo(2L);
            assertThat(InputRange.rejected("lmstudio_chat", "tokens_per_second")).isEqualTo(rate + 1);
            assertThat(InputRange.rejected("lmstudio_chat", "time_to_first_token_seconds")).isEqualTo(ttft + 1);
            sim.wire(LmStudioWire.class).answer("/api/v1/chat", 200, "text/event-stream", head);
            ProbeResult cut = c.probe(request());
            assertThat(cut.success()).isFalse();
            assertThat(cut.errorType()).isEqualTo("cut");
        }
    }

    @Test
    void theDaemonExportsTheEnginesOwnFiguresWhereItReportsThemAndNothingElsewhere() throws Exception {
        try (EngineSimulator lms = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1);
             EngineSimulator mlx = VllmMlxAndLmStudioSignalsTest.sim("mlx_lm", 1)) {
            String yaml = "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n"
                    + engine("lms", lms) + engine("mlx", mlx);
            try (Daemon d = new Daemon(Config.parse(yaml, "test", Map.of()), Map.of(), List.of()).start()) {
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"))
                        .contains("tailwatch_probe_engine_ttft_seconds{tailwatch_engine_name=\"lms\",tailwatch_scenario=\"interactive\"}")
                        .contains("tailwatch_probe_success{tailwatch_engine_name=\"mlx\",tailwatch_scenario=\"interactive\"} 1.0"));
                String m = VllmMlxAndLmStudioSignalsTest.get(d, "/metrics");
                JsonNode stats = lms.wire(LmStudioWire.class).lastStats();
                // The exported figures are the engine's, as its last answer stated them (no probe runs meanwhile: 1h).
                assertThat(value(m, "tailwatch_probe_engine_ttft_seconds", "lms"))
                        .isEqualTo(stats.get("time_to_first_token_seconds").asDouble());
                assertThat(value(m, "tailwatch_probe_engine_decode_rate_per_second", "lms"))
                        .isEqualTo(stats.get("tokens_per_second").asDouble());
                assertThat(m).as("mlx_lm reports no stats of its own: absent, not 0")
                        .doesNotContain("tailwatch_probe_engine_ttft_seconds{tailwatch_engine_name=\"mlx\"")
                        .doesNotContain("tailwatch_probe_engine_decode_rate_per_second{tailwatch_engine_name=\"mlx\"");
            }
        }
    }

    @Test
    void theProxyCountsANativeChatStreamByItsChatEndAndItsStatsTokens() throws Exception {
        try (EngineSimulator sim = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1);
             Daemon d = VllmMlxAndLmStudioSignalsTest.daemon(sim, "lms", true)) {
            int port = d.proxies().proxy("lms").port();
            HttpResponse<String> r = chat(port, true, 5);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).startsWith("event: chat.start").contains("event: chat.end");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"))
                    .contains("tailwatch_proxy_requests_total{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\","
                            + "tailwatch_proxy_outcome=\"ok\"} 1.0")
                    .contains("tailwatch_proxy_output_tokens_total{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\","
                            + "tailwatch_token_source=\"engine\"} 5.0"));
            assertEngineFigures(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"), sim.wire(LmStudioWire.class).lastStats());
            // The same stream without its chat.end (the engine went away mid-answer) is a cut.
            sim.wire(LmStudioWire.class).answer("/api/v1/chat", 200, "text/event-stream",
                    "event: chat.start\ndata: {\"type\":\"chat.start\",\"model_instance_id\":\"m\"}\n\n"
                            + "event: message.delta\ndata: {\"type\":\"message.delta\",\"content\":\" one\"}\n\n");
            assertThat(chat(port, true, 5).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"))
                    .contains("tailwatch_proxy_requests_total{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\","
                            + "tailwatch_proxy_outcome=\"cut\"} 1.0"));
        }
    }

    @Test
    void theProxyCountsAWholeNativeAnswerByItsStatsTokensAndNothingWhereItHasNone() throws Exception {
        try (EngineSimulator sim = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1);
             Daemon d = VllmMlxAndLmStudioSignalsTest.daemon(sim, "lms", true)) {
            int port = d.proxies().proxy("lms").port();
            // First an answer without stats (as an engine that reports none): counted ok, its tokens unknown.
            LmStudioWire wire = sim.wire(LmStudioWire.class);
            wire.answer("/api/v1/chat", 200, "application/json", "{\"model_instance_id\":\"m\",\"output\":[{\"type\":"
                    + "\"message\",\"content\":\"one two\"}],\"usage_like\":{\"input_tokens\":3}}");
            assertThat(chat(port, false, 4).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"))
                    .contains("tailwatch_proxy_requests_total{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\","
                            + "tailwatch_proxy_outcome=\"ok\"} 1.0"));
            String none = VllmMlxAndLmStudioSignalsTest.get(d, "/metrics");
            assertThat(none).doesNotContain("tailwatch_proxy_output_tokens_total{").doesNotContain("tailwatch_proxy_token_usage_count{")
                    .doesNotContain("tailwatch_proxy_engine_");
            // Then LM Studio's own whole answer: its tokens are the stats it sent.
            wire.answer("/api/v1/chat", 0, null, null);
            HttpResponse<String> r = chat(port, false, 4);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode stats = wire.lastStats();
            assertThat(io.tailwatch.core.json.Json.MAPPER.readTree(r.body()).get("stats")).isEqualTo(stats);
            long in = stats.get("input_tokens").asLong();
            long out = stats.get("total_output_tokens").asLong();
            assertThat(out).isEqualTo(4);
            String usage = "tailwatch_proxy_token_usage_sum{gen_ai_response_model=\"" + sim.options().model() + "\",gen_ai_token_type=\"";
            String rest = "\",tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\",tailwatch_token_source=\"engine\"} ";
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"))
                    .contains("tailwatch_proxy_requests_total{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\","
                            + "tailwatch_proxy_outcome=\"ok\"} 2.0")
                    .contains("tailwatch_proxy_output_tokens_total{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\","
                            + "tailwatch_token_source=\"engine\"} " + out + ".0")
                    .contains(usage + "output" + rest + out + ".0")
                    .contains(usage + "input" + rest + in + ".0"));
            assertEngineFigures(VllmMlxAndLmStudioSignalsTest.get(d, "/metrics"), stats);
        }
    }

    /** The proxy's series of the engine's own figures hold exactly one answer's stats: its TTFT and 1 / its rate. */
    private static void assertEngineFigures(String metrics, JsonNode stats) {
        double ttft = stats.get("time_to_first_token_seconds").asDouble();
        double rate = stats.get("tokens_per_second").asDouble();
        assertThat(ttft).isPositive();
        assertThat(rate).isPositive();
        assertThat(histogram(metrics, "tailwatch_proxy_engine_time_to_first_token_seconds", "count")).isEqualTo(1.0);
        assertThat(histogram(metrics, "tailwatch_proxy_engine_time_to_first_token_seconds", "sum")).isEqualTo(ttft);
        assertThat(histogram(metrics, "tailwatch_proxy_engine_time_per_output_token_seconds", "count")).isEqualTo(1.0);
        assertThat(histogram(metrics, "tailwatch_proxy_engine_time_per_output_token_seconds", "sum")).isEqualTo(1 / rate);
    }

    private static double histogram(String metrics, String name, String part) {
        Matcher v = Pattern.compile(Pattern.quote(name + "_" + part + "{tailwatch_engine_name=\"lms\",tailwatch_lane=\"default\"} ")
                + "(\\S+)").matcher(metrics);
        assertThat(v.find()).as(name + "_" + part + " in\n" + metrics).isTrue();
        return Double.parseDouble(v.group(1));
    }

    @Test
    void theSimulatorsNonStreamedNativeChatCarriesTheSameStats() throws Exception {
        try (EngineSimulator sim = VllmMlxAndLmStudioSignalsTest.sim("lmstudio", 1)) {
            HttpResponse<String> r = chat(sim.port(), false, 4);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode body = io.tailwatch.core.json.Json.MAPPER.readTree(r.body());
            assertThat(body.get("model_instance_id").asText()).isEqualTo(sim.options().model());
            assertThat(body.get("output").get(0).get("type").asText()).isEqualTo("message");
            assertThat(body.get("stats")).isEqualTo(sim.wire(LmStudioWire.class).lastStats());
            assertThat(body.get("stats").get("total_output_tokens").asInt()).isEqualTo(4);
            // 20 tokens/s: four tokens over four intervals of 50 ms
            assertThat(body.get("stats").get("tokens_per_second").asDouble()).isEqualTo(20.0, org.assertj.core.data.Offset.offset(0.5));
            assertThat(body.has("response_id")).as("store: false, so no response is kept").isFalse();
            HttpResponse<String> missing = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + "/api/v1/chat"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{\"input\":\"hi\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(missing.statusCode()).isEqualTo(400);
            assertThat(missing.body()).contains("\"param\":\"model\"");
        }
    }

    private static String engine(String name, EngineSimulator sim) {
        return "  - name: " + name + "\n    api: openai\n    url: http://127.0.0.1:" + sim.port() + "\n"
                + "    health: {interval: 1s}\n"
                + "    scenarios: [{name: interactive, interval: 1h, max_tokens: 4, timeouts: {total: 10s, first_token: 5s}}]\n";
    }

    private static HttpResponse<String> chat(int port, boolean stream, int tokens) throws Exception {
        String body = "{\"model\":\"" + io.tailwatch.tools.sim.SimulatorOptions.defaults("openai").model()
                + "\",\"input\":\"say something\",\"stream\":" + stream + ",\"store\":false,\"max_output_tokens\":" + tokens + "}";
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/chat"))
                .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double value(String metrics, String name, String engine) {
        Matcher v = Pattern.compile(Pattern.quote(name + "{tailwatch_engine_name=\"" + engine
                + "\",tailwatch_scenario=\"interactive\"} ") + "(\\S+)").matcher(metrics);
        assertThat(v.find()).as(name + " of " + engine).isTrue();
        return Double.parseDouble(v.group(1));
    }
}
