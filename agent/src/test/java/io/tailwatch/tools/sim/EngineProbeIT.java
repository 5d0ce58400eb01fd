package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: the real jar, configured to probe an in-process simulator on loopback. /metrics
 * shows the GenAI histograms, the window gauges and the engine up; after the simulator stops,
 * the engine goes down.
 */
class EngineProbeIT {
    @TempDir
    Path dir;

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static String get(HttpClient c, String url) {
        try {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(3)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    @Test
    void probesTheSimulatorAndReportsItDownWhenItStops() throws Exception {
        EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0,
                SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(30), 300));
        int port = freePort();
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, """
                server:
                  listen: 127.0.0.1:%d
                host:
                  interval: 1s
                  timeout: 900ms
                engines:
                  - name: sim
                    api: ollama
                    url: http://127.0.0.1:%d
                    health: {interval: 1s, timeout: 900ms}
                    scenarios:
                      - name: interactive
                        interval: 1s
                        prompt_tokens: 32
                        max_tokens: 8
                        timeouts: {connect: 500ms, first_token: 900ms, total: 950ms}
                """.formatted(port, sim.port()));
        Path log = dir.resolve("agent.log");
        Process agent = new ProcessBuilder("java", "-jar", System.getProperty("tailwatch.jar"), "run", "--config",
                config.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        HttpClient http = HttpClient.newHttpClient();
        String metrics = "http://127.0.0.1:" + port + "/metrics";
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                String m = get(http, metrics);
                assertThat(m).as(Files.readString(log))
                        .contains("tailwatch_engine_up{tailwatch_engine_name=\"sim\"} 1")
                        .contains("gen_ai_client_operation_duration_seconds_bucket{")
                        .contains("gen_ai_client_operation_time_to_first_chunk_seconds_bucket{")
                        .contains("gen_ai_client_operation_time_per_output_chunk_seconds_bucket{")
                        .contains("gen_ai_client_token_usage_bucket{")
                        .contains("le=\"0.5\"").contains("le=\"1.0\"")
                        .containsPattern("tailwatch_probe_window_e2e_seconds\\{gen_ai_request_model=\"sim-llama3:8b\",tailwatch_engine_name=\"sim\",tailwatch_percentile=\"p95\",tailwatch_scenario=\"interactive\"} 0\\.\\d+")
                        .contains("tailwatch_probe_window_ttft_seconds{")
                        .contains("tailwatch_probe_window_error_ratio{gen_ai_request_model=\"sim-llama3:8b\",tailwatch_engine_name=\"sim\",tailwatch_scenario=\"interactive\"} 0.0")
                        .contains("tailwatch_model_kv_cache_headroom_tokens{gen_ai_request_model=\"sim-llama3:8b\",tailwatch_engine_name=\"sim\"");
            });
            String status = get(http, "http://127.0.0.1:" + port + "/api/v1/status");
            assertThat(status).contains("\"engines\"").contains("\"version\" : \"0.12.6\"").contains("\"p95\"");
            sim.close();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(get(http, metrics)).contains("tailwatch_engine_up{tailwatch_engine_name=\"sim\"} 0"));
        } finally {
            sim.close();
            agent.destroy();
            if (!agent.waitFor(10, TimeUnit.SECONDS)) {
                agent.destroyForcibly();
            }
        }
    }
}
