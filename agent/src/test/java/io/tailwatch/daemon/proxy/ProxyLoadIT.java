package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** 64 streams at once through the proxy of the agent as shipped (the launcher's 24 MiB heap, exit on out-of-memory). */
class ProxyLoadIT {
    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void sixtyFourConcurrentStreamsFitTheShippedHeap(@TempDir Path dir) throws Exception {
        int streams = 64;
        int tokens = 150;
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(50), 50).withSlots(64))) {
            Path cfg = dir.resolve("tailwatch.yaml");
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                    + ProxyIT.engineYaml("sim", sim.port()));
            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                ProxyIT.agent = agent;
                await().atMost(Duration.ofSeconds(30)).until(() -> ProxyIT.proxyPort("sim") > 0);
                int port = ProxyIT.proxyPort("sim");
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                String body = "{\"model\":\"" + sim.options().model() + "\",\"stream\":true,\"max_tokens\":" + tokens
                        + ",\"stream_options\":{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
                List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
                for (int i = 0; i < streams; i++) {
                    all.add(http.sendAsync(HttpRequest.newBuilder(ProxyIT.at(port, "/v1/chat/completions"))
                            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(), HttpResponse.BodyHandlers.ofString()));
                }
                // While they run: every one of them is in flight at the proxy, as the engine counts them.
                await().atMost(Duration.ofSeconds(20)).until(() -> inFlight() == streams);
                for (CompletableFuture<HttpResponse<String>> f : all) {
                    HttpResponse<String> r = f.get();
                    assertThat(r.statusCode()).isEqualTo(200);
                    assertThat(r.body()).endsWith("data: [DONE]\n\n").contains("\"completion_tokens\":" + tokens);
                }
                assertThat(sim.maxConcurrent()).isEqualTo(streams);
                await().atMost(Duration.ofSeconds(10)).until(() -> ProxyIT.metric("tailwatch_proxy_output_tokens_total{"
                        + "tailwatch_engine_name=\"sim\",tailwatch_lane=\"default\",tailwatch_token_source=\"usage\"}")
                        == (double) streams * tokens);
                assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                assertThat(agent.stderr()).doesNotContain("OutOfMemoryError");
                assertThat(agent.get("/healthz").statusCode()).isEqualTo(200);
            } finally {
                ProxyIT.agent = null;
            }
        }
    }

    private static int inFlight() throws Exception {
        for (JsonNode p : Json.MAPPER.readTree(ProxyIT.agent.get("/api/v1/status").body()).path("proxies")) {
            return p.path("in_flight").asInt();
        }
        return -1;
    }
}
