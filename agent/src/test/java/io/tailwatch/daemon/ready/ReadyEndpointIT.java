package io.tailwatch.daemon.ready;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar in front of a simulator that loads its model for a few seconds: the route answers 503 with
 * Retry-After and {@code loading} while it loads and 200 once it serves; the metrics and the status say the same;
 * the read-only token opens the route and nothing else; a broken token file stops startup with exit 2.
 */
class ReadyEndpointIT {

    @Test
    void loadingEngineIsNotReadyThenReadyEverywhereTheSame(@TempDir Path dir) throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(20), 100).withLoadTime(Duration.ofSeconds(6)));
             AgentProcess agent = ReadyAgents.start(dir, "a", "http://127.0.0.1:" + sim.port(), "")) {
            await().atMost(Duration.ofSeconds(20)).until(() -> ReadyAgents.ready(agent).body().contains("\"loading\""));
            HttpResponse<String> loading = ReadyAgents.ready(agent);
            assertThat(loading.statusCode()).isEqualTo(503);
            assertThat(loading.headers().firstValue("Retry-After")).hasValue("1");
            JsonNode l = Json.MAPPER.readTree(loading.body());
            assertThat(l.path("verdict").asText()).isEqualTo("not_ready");
            assertThat(l.path("figures").path("engine_state").asText()).isEqualTo("loading");
            assertThat(l.path("headroom").asInt(-1)).isZero();
            assertThat(agent.series("tailwatch_engine_ready{tailwatch_engine_name=\"llm\",tailwatch_engine_ready_reason=\"loading\"}"))
                    .isZero();

            await().atMost(Duration.ofSeconds(20)).until(() -> ReadyAgents.ready(agent).statusCode() == 200);
            JsonNode r = Json.MAPPER.readTree(ReadyAgents.ready(agent).body());
            assertThat(r.path("verdict").asText()).isEqualTo("ready");
            assertThat(r.path("reasons")).isEmpty();
            assertThat(r.path("headroom").asInt()).isEqualTo(1);
            assertThat(r.path("figures").path("slots_source").asText()).contains("mlx_lm");
            await().atMost(Duration.ofSeconds(5)).until(() -> agent.series(
                    "tailwatch_engine_ready{tailwatch_engine_name=\"llm\",tailwatch_engine_ready_reason=\"none\"}") == 1);
            assertThat(agent.series("tailwatch_engine_ready_headroom{tailwatch_engine_name=\"llm\"}")).isEqualTo(1);
            JsonNode status = Json.MAPPER.readTree(agent.get("/api/v1/status", "Authorization", "Bearer " + ReadyAgents.SERVER_TOKEN).body());
            assertThat(status.path("engines").path(0).path("ready").path("verdict").asText()).isEqualTo("ready");

            // Saturated through the proxy: status and diagnose tell the same verdict as the route.
            int proxy = ReadyAgents.proxyPort(agent);
            java.util.concurrent.CompletableFuture<?> busy = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    ReadyAgents.chat(proxy, "long", 2_000);
                } catch (Exception e) {
                    // the agent is closed under it at the end
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> ReadyAgents.ready(agent).statusCode() == 503);
            String token = dir.resolve("a").resolve("server.token").toString();
            AgentProcess.Result st = AgentProcess.run(Map.of(), "status", "--url", agent.url(""), "--token-file", token);
            assertThat(st.stdout()).contains("not ready: queue_full (in_flight 1, limit 1)");
            AgentProcess.Result dg = AgentProcess.run(Map.of(), "diagnose", "--url", agent.url(""), "--token-file", token,
                    "--engine", "llm");
            assertThat(dg.stdout()).contains("Readiness of llm: not ready: queue_full (in_flight 1, limit 1)");
            assertThat(ReadyAgents.ready(agent).body()).contains("\"queue_full\"");

            // The read-only token opens the ready route only; no token opens nothing; an unknown engine is 404.
            assertThat(agent.get("/api/v1/engines/llm/ready").statusCode()).isEqualTo(401);
            assertThat(agent.get("/api/v1/status", "Authorization", "Bearer " + ReadyAgents.READ_TOKEN).statusCode()).isEqualTo(401);
            assertThat(agent.get("/api/v1/alerts", "Authorization", "Bearer " + ReadyAgents.READ_TOKEN).statusCode()).isEqualTo(401);
            // The server's own token opens it too (the engine is still busy with the long request: 503, not 401).
            assertThat(agent.get("/api/v1/engines/llm/ready", "Authorization", "Bearer " + ReadyAgents.SERVER_TOKEN).statusCode())
                    .isEqualTo(503);
            HttpResponse<String> none = agent.get("/api/v1/engines/nope/ready", "Authorization", "Bearer " + ReadyAgents.READ_TOKEN);
            assertThat(none.statusCode()).isEqualTo(404);
            assertThat(none.body()).contains("no engine named nope");
        }
    }

    @Test
    void emptyReadOnlyTokenFileStopsStartup(@TempDir Path dir) throws Exception {
        Path cfg = Files.writeString(dir.resolve("t.yaml"), "server:\n  listen: 127.0.0.1:0\nengines: []\n");
        Path empty = Files.writeString(dir.resolve("empty.token"), "\n");
        AgentProcess.Result r = AgentProcess.run(Map.of(ReadinessMonitor.TOKEN_FILE_VARIABLE, empty.toString(),
                "TAILWATCH_DATA_DIR", dir.resolve("data").toString()), "run", "--config", cfg.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr() + r.stdout()).contains(ReadinessMonitor.TOKEN_FILE_VARIABLE).contains("empty");
    }
}
