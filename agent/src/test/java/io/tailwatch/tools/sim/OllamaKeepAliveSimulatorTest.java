package io.tailwatch.tools.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The in-process Ollama flavour keeps a model for its keep-alive after the last request and then unloads it:
 * {@code /api/ps} drops it; a request without a prompt loads it, or with {@code keep_alive: 0} unloads it; the
 * request's {@code keep_alive} is read as Ollama reads it (seconds, a Go duration, negative for ever).
 */
class OllamaKeepAliveSimulatorTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void anIdleModelIsUnloadedAtItsExpiryAndAPromptlessRequestLoadsOrUnloadsIt() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(5), 500);
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, o)) {
            assertThat(get(sim, "/api/ps").path("models")).hasSize(1);
            sim.wire(OllamaWire.class).keepAlive(Duration.ofMillis(300));
            await().atMost(Duration.ofSeconds(10)).until(() -> get(sim, "/api/ps").path("models").isEmpty());

            JsonNode load = json(post(sim, "/api/generate", "{\"model\":\"" + o.model() + "\",\"keep_alive\":\"1h\"}"));
            assertThat(load.path("done_reason").asText()).isEqualTo("load");
            assertThat(load.path("done").asBoolean()).isTrue();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(Instant.parse(get(sim, "/api/ps")
                    .path("models").get(0).path("expires_at").asText())).isAfter(Instant.now().plusSeconds(3000)));
            assertThat(sim.served()).as("loading generates nothing").isZero();

            JsonNode unload = json(post(sim, "/api/chat", "{\"model\":\"" + o.model() + "\",\"messages\":[],\"keep_alive\":0}"));
            assertThat(unload.path("done_reason").asText()).isEqualTo("unload");
            await().atMost(Duration.ofSeconds(5)).until(() -> get(sim, "/api/ps").path("models").isEmpty());

            // A generation loads it again and keeps it for ever with a negative keep_alive.
            HttpResponse<String> gen = post(sim, "/api/generate", "{\"model\":\"" + o.model() + "\",\"prompt\":\"hi\","
                    + "\"stream\":false,\"keep_alive\":-1,\"options\":{\"num_predict\":2}}");
            assertThat(json(gen).path("eval_count").asInt()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(get(sim, "/api/ps").path("models").get(0)
                    .path("expires_at").asText()).isEqualTo(OllamaWire.FOREVER));

            HttpResponse<String> bad = post(sim, "/api/generate", "{\"model\":\"" + o.model() + "\",\"prompt\":\"hi\",\"keep_alive\":\"soon\"}");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(json(bad).path("error").asText()).isEqualTo("time: invalid duration \"soon\"");
        }
    }

    @Test
    void keepAliveIsReadAsOllamaReadsIt() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama"))) {
            OllamaWire w = sim.wire(OllamaWire.class).keepAlive(Duration.ofMinutes(7));
            assertThat(w.keepAliveOf(null)).isEqualTo(Duration.ofMinutes(7));
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("30"))).isEqualTo(Duration.ofSeconds(30));
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("1.5"))).isEqualTo(Duration.ofMillis(1500));
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("\"1h30m\""))).isEqualTo(Duration.ofMinutes(90));
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("\"250ms\""))).isEqualTo(Duration.ofMillis(250));
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("\"0\""))).isZero();
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("0"))).isZero();
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("-1")).isNegative()).isTrue();
            assertThat(w.keepAliveOf(EngineSimulator.JSON.readTree("\"-5m\"")).isNegative()).isTrue();
            assertThatThrownBy(() -> w.keepAliveOf(EngineSimulator.JSON.readTree("\"5 minutes\"")))
                    .hasMessage("time: invalid duration \"5 minutes\"");
            assertThatThrownBy(() -> w.keepAliveOf(EngineSimulator.JSON.readTree("true")))
                    .hasMessage("time: invalid duration true");
        }
    }

    private static JsonNode json(HttpResponse<String> r) throws Exception {
        return EngineSimulator.JSON.readTree(r.body());
    }

    private static JsonNode get(EngineSimulator sim, String path) throws Exception {
        return json(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()));
    }

    private static HttpResponse<String> post(EngineSimulator sim, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + path))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
