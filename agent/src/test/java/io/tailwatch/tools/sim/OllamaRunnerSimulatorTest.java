package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Ollama flavour with a runner child: nothing runs until the first request, which starts the runner (the
 * simulator's llama-server look-alike in a child JVM) with Ollama's command line; generation is proxied to its
 * /completion and comes back as NDJSON with the runner's counters; /api/ps shows the loaded model with its context
 * and unload time; closing the simulator stops the runner.
 */
class OllamaRunnerSimulatorTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void theFirstRequestStartsARunnerChildThatGenerates() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(20), 200);
        long runnerPid;
        try (EngineSimulator sim = EngineSimulator.startOllama("127.0.0.1", 0, o,
                RunnerSpec.simulated(o.model(), 3, 8192, o))) {
            assertThat(sim.runnerPid()).isEqualTo(-1);
            assertThat(get(sim, "/api/ps").path("models")).isEmpty();

            HttpResponse<String> r = post(sim, "/api/generate", "{\"model\":\"" + o.model() + "\",\"prompt\":\"one two three\","
                    + "\"options\":{\"num_predict\":5}}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
            List<String> lines = r.body().lines().toList();
            assertThat(lines).hasSize(6);
            JsonNode last = EngineSimulator.JSON.readTree(lines.get(5));
            assertThat(last.path("done").asBoolean()).isTrue();
            assertThat(last.path("eval_count").asInt()).isEqualTo(5);
            assertThat(last.path("prompt_eval_count").asInt()).isEqualTo(3);
            assertThat(last.path("prompt_eval_cached_count").asInt()).isZero();
            assertThat(last.path("load_duration").asLong()).isPositive();
            StringBuilder text = new StringBuilder();
            for (String l : lines.subList(0, 5)) {
                JsonNode n = EngineSimulator.JSON.readTree(l);
                assertThat(n.path("done").asBoolean(true)).isFalse();
                text.append(n.path("response").asText());
            }
            assertThat(text).hasToString(" one two three four five");

            runnerPid = sim.runnerPid();
            ProcessHandle child = ProcessHandle.of(runnerPid).orElseThrow();
            assertThat(child.parent().map(ProcessHandle::pid)).hasValue(ProcessHandle.current().pid());
            List<String> args = List.of(child.info().arguments().orElseThrow());
            assertThat(args).containsSubsequence("--model", o.model(), "--port", Integer.toString(sim.runnerPort()),
                    "--host", "127.0.0.1", "--no-webui", "--offline", "-c", "24576", "-np", "3");

            JsonNode m = get(sim, "/api/ps").path("models").get(0);
            assertThat(m.path("context_length").asInt()).isEqualTo(8192);
            Instant expires = Instant.parse(m.path("expires_at").asText());
            assertThat(expires).isBetween(Instant.now().plusSeconds(240), Instant.now().plusSeconds(301));

            // chat goes the same way; the runner is reused, not started again
            HttpResponse<String> chat = post(sim, "/api/chat", "{\"model\":\"" + o.model() + "\",\"stream\":false,"
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"options\":{\"num_predict\":3}}");
            JsonNode c = EngineSimulator.JSON.readTree(chat.body());
            assertThat(c.path("message").path("content").asText()).isEqualTo(" one two three");
            assertThat(c.path("eval_count").asInt()).isEqualTo(3);
            assertThat(sim.runnerPid()).isEqualTo(runnerPid);
            assertThat(sim.served()).isEqualTo(2);

            HttpResponse<String> unknown = post(sim, "/api/generate", "{\"model\":\"no\\\"pe\",\"prompt\":\"x\"}");
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(unknown.body()).isEqualTo("{\"error\":\"model \\\"no\\\"pe\\\" not found, try pulling it first\"}");
        }
        await().atMost(Duration.ofSeconds(15)).until(() -> ProcessHandle.of(runnerPid).map(h -> !h.isAlive()).orElse(true));
    }

    private static JsonNode get(EngineSimulator sim, String path) throws Exception {
        return EngineSimulator.JSON.readTree(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private static HttpResponse<String> post(EngineSimulator sim, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + path))
                .timeout(Duration.ofSeconds(90)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
