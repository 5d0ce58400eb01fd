package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Promtool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real jar reading a vLLM-like and an mlx-vlm-like loopback engine, scraped as Prometheus would. */
class EngineSignalsIT {

    @Test
    void theJarPublishesEachEnginesOwnSignals(@TempDir Path dir) throws Exception {
        try (FakeEngine vllm = new FakeEngine(); FakeEngine vlm = new FakeEngine()) {
            vllm.prometheus("/metrics", FakeEngine.resource("vllm-metrics.txt"));
            vlm.json("/metrics", FakeEngine.resource("mlx-vlm-metrics.json"));
            Path cfg = dir.resolve("tailwatch.yaml");
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 5s\nengines:\n"
                    + "  - name: vllm\n    api: openai\n    url: " + vllm.url() + "\n    signals: {interval: 2s}\n"
                    + "    scenarios: [{name: interactive, interval: 1h, timeouts: {total: 5s, first_token: 5s}}]\n"
                    + "  - name: vlm\n    api: openai\n    url: " + vlm.url() + "\n    signals: {source: mlx_vlm, interval: 2s}\n"
                    + "    scenarios: [{name: interactive, interval: 1h, timeouts: {total: 5s, first_token: 5s}}]\n");
            try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(agent.get("/metrics").body())
                        .contains("tailwatch_engine_requests{tailwatch_engine_name=\"vllm\",tailwatch_engine_request_state=\"waiting\",tailwatch_engine_requests_source=\"engine\"} 9.0")
                        .contains("tailwatch_engine_requests{tailwatch_engine_name=\"vlm\",tailwatch_engine_request_state=\"running\",tailwatch_engine_requests_source=\"engine\"} 3.0"));
                String body = agent.get("/metrics").body();
                assertThat(body).contains("tailwatch_engine_kv_cache_usage_ratio{tailwatch_engine_name=\"vllm\"} 0.61")
                        .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"vllm\",tailwatch_engine_signal_source=\"prometheus\"} 1.0")
                        .contains("tailwatch_engine_signal_source{tailwatch_engine_name=\"vlm\",tailwatch_engine_signal_source=\"mlx_vlm_json\"} 1.0")
                        .doesNotContain("tailwatch_engine_kv_cache_usage_ratio{tailwatch_engine_name=\"vlm\"}");
                Promtool.Result lint = Promtool.run(body, "check", "metrics");
                assertThat(lint.exitCode()).as(lint.output()).isZero();

                JsonNode status = Json.MAPPER.readTree(agent.get("/api/v1/status").body()).get("engines");
                assertThat(status.get(1).get("name").asText()).isEqualTo("vlm");
                assertThat(status.get(1).get("signals").get("details").get("last_error").asText())
                        .isEqualTo("ValueError: image could not be decoded");

                // The vLLM engine starts serving garbage: only its figures go, counted as malformed.
                vllm.prometheus("/metrics", "vllm:num_requests_running{model_name=\"m\" 1\n");
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(agent.get("/metrics").body())
                        .contains("tailwatch_engine_signal_failures_total{error_type=\"malformed\",tailwatch_engine_name=\"vllm\","
                                + "tailwatch_engine_signal_source=\"prometheus\"}")
                        .doesNotContain("tailwatch_engine_requests{tailwatch_engine_name=\"vllm\"")
                        .contains("tailwatch_engine_requests{tailwatch_engine_name=\"vlm\",tailwatch_engine_request_state=\"running\",tailwatch_engine_requests_source=\"engine\"} 3.0"));
            }
        }
    }
}
