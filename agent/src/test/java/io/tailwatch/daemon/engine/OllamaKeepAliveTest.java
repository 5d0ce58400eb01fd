package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.RunnerSpec;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Ollama with a runner child (the simulator's look-alike) keeps a model for the request's keep_alive and then
 * unloads it; the daemon follows: the loaded-model count, the model's context and its unload time appear with the
 * load, the unload time moves with each request, and all of it goes when the engine unloads the model.
 */
class OllamaKeepAliveTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern UNLOAD = Pattern.compile("tailwatch_model_unload_time_seconds\\{[^}]*tailwatch_engine_name=\"ollama\"[^}]*\\} (\\S+)");

    @Test
    void theExportedModelFollowsItsKeepAliveUntilTheEngineUnloadsIt() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(10), 200);
        try (EngineSimulator sim = EngineSimulator.startOllama("127.0.0.1", 0, o, RunnerSpec.simulated(o.model(), 2, 8192, o));
             Daemon d = new Daemon(Config.parse("server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n"
                     + "  - name: ollama\n    api: ollama\n    url: http://127.0.0.1:" + sim.port() + "\n    scenarios: []\n"
                     + "    health: {interval: 1s}\n", "test", Map.of()), Map.of(), List.of()).start()) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(metrics(d))
                    .contains("tailwatch_engine_models_loaded{tailwatch_engine_name=\"ollama\"} 0.0"));
            assertThat(metrics(d)).doesNotContain("tailwatch_model_context_length{").doesNotContainPattern(UNLOAD);

            generate(sim, "\"30s\"");
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                String m = metrics(d);
                assertThat(m).contains("tailwatch_engine_models_loaded{tailwatch_engine_name=\"ollama\"} 1.0")
                        .containsPattern("tailwatch_model_context_length\\{[^}]*tailwatch_engine_name=\"ollama\"[^}]*\\} 8192.0");
                assertThat(unloadTime(m)).isEqualTo(expiresAt(sim), org.assertj.core.data.Offset.offset(1e-3));
            });
            double first = unloadTime(metrics(d));

            // The next request moves the expiry on: 2 s after its end, earlier than the 30 s of the first.
            generate(sim, "2");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                double now = unloadTime(metrics(d));
                assertThat(now).isNotEqualTo(first).isEqualTo(expiresAt(sim), org.assertj.core.data.Offset.offset(1e-3));
            });
            long runner = sim.runnerPid();
            assertThat(runner).isPositive();

            // At that time the engine unloads the model: /api/ps drops it, its runner stops, and the agent's series go.
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(ps(sim).path("models")).isEmpty();
                assertThat(sim.runnerPid()).isEqualTo(-1);
            });
            assertThat(ProcessHandle.of(runner).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(metrics(d))
                    .contains("tailwatch_engine_models_loaded{tailwatch_engine_name=\"ollama\"} 0.0")
                    .doesNotContain("tailwatch_model_context_length{").doesNotContainPattern(UNLOAD));
        }
    }

    private static void generate(EngineSimulator sim, String keepAlive) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + "/api/generate"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofString("{\"model\":\""
                        + SimulatorOptions.DEFAULT_OLLAMA_MODEL + "\",\"prompt\":\"hi\",\"stream\":false,\"keep_alive\":"
                        + keepAlive + ",\"options\":{\"num_predict\":2}}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static JsonNode ps(EngineSimulator sim) throws Exception {
        return io.tailwatch.core.json.Json.MAPPER.readTree(HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sim.port() + "/api/ps"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    /** The model's expires_at in /api/ps, as Unix time. */
    private static double expiresAt(EngineSimulator sim) throws Exception {
        Instant t = Instant.parse(ps(sim).path("models").get(0).path("expires_at").asText());
        return t.getEpochSecond() + t.getNano() / 1e9;
    }

    private static double unloadTime(String metrics) {
        Matcher m = UNLOAD.matcher(metrics);
        assertThat(m.find()).as("an unload time is exported").isTrue();
        return Double.parseDouble(m.group(1));
    }

    private static String metrics(Daemon d) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }
}
