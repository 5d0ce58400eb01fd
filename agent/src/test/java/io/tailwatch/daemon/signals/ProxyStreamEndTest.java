package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.daemon.Daemon;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An Ollama-style NDJSON stream through the proxy is ok only when it ends with its {@code "done": true} line; one
 * that stops before it (the engine killed mid-answer) is {@code cut}, as an SSE stream without {@code [DONE]} is.
 */
class ProxyStreamEndTest {
    private static final String LINE = "{\"model\":\"m\",\"created_at\":\"2026-01-01T00:00:00Z\",\"message\":"
            + "{\"role\":\"assistant\",\"content\":\" one\"},\"done\":false}\n";
    private static final String DONE = "{\"model\":\"m\",\"created_at\":\"2026-01-01T00:00:01Z\",\"message\":"
            + "{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"eval_count\":2,"
            + "\"prompt_eval_count\":3}\n";

    @Test
    void anNdjsonStreamWithoutItsDoneLineIsCut() throws Exception {
        try (FakeEngine engine = new FakeEngine()) {
            engine.answer("/api/chat", 200, "application/x-ndjson", LINE + LINE + DONE);
            String yaml = "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n  - name: o\n    api: ollama\n"
                    + "    url: " + engine.url() + "\n    scenarios: []\n    health: {interval: 1h}\n    signals: {source: none}\n"
                    + "    proxy: {listen: 127.0.0.1:0}\n";
            try (Daemon d = new Daemon(Config.parse(yaml, "test", Map.of()), Map.of(), List.of()).start()) {
                int port = d.proxies().proxy("o").port();
                assertThat(chat(port).body()).endsWith(DONE);
                engine.answer("/api/chat", 200, "application/x-ndjson", LINE + LINE);
                assertThat(chat(port).body()).isEqualTo(LINE + LINE);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(DaemonSignalsTest.get(d, "/metrics"))
                        .contains("tailwatch_proxy_requests_total{tailwatch_engine_name=\"o\",tailwatch_lane=\"default\","
                                + "tailwatch_proxy_outcome=\"ok\"} 1.0")
                        .contains("tailwatch_proxy_requests_total{tailwatch_engine_name=\"o\",tailwatch_lane=\"default\","
                                + "tailwatch_proxy_outcome=\"cut\"} 1.0")
                        .contains("tailwatch_proxy_output_tokens_total{tailwatch_engine_name=\"o\",tailwatch_lane=\"default\","
                                + "tailwatch_token_source=\"engine\"} 2.0"));
            }
        }
    }

    private static HttpResponse<String> chat(int port) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/chat"))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
    }
}
