package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.testing.SimulatorChild;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatedMlxLm;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A probe of today's mlx_lm.server names no model (so it never swaps one in), and the answers echo the placeholder
 * they were given, {@code default_model}. The daemon records the model the server was started with, read from the
 * {@code --model} of the process listening on the engine's port, and where it cannot read that, "unknown": never
 * the placeholder, in the probe and window series or the status.
 */
class MlxLmServedModelTest {
    @Test
    void theDaemonRecordsTheModelTheServerWasStartedWithNotTheEchoedPlaceholder() throws Exception {
        int port = SimulatorChild.freePort();
        try (SimulatorChild child = SimulatorChild.start(SimulatedMlxLm.class, port, List.of("/opt/homebrew/bin/mlx_lm.server",
                "--model", "/Users/me/models/Qwen3-0.6B-4bit/", "--host", "127.0.0.1", "--port", Integer.toString(port)));
             Daemon d = TodaysMlxLmServerTest.daemon(port, "{first_token: 1s, total: 1400ms}", true)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> Double.valueOf(1.0)
                    .equals(d.hub().snapshot().value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "mlx")));
            // A user's request through the proxy that names no model: its answer echoes the placeholder too, and the
            // proxy's series take the served model's name instead.
            String body = TodaysMlxLmServerTest.post(d.proxies().proxy("mlx").port(), "{\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"hello\"}],\"max_tokens\":4,\"stream\":true,\"stream_options\":{\"include_usage\":true}}")
                    .body();
            assertThat(body).contains(EngineClient.UNNAMED_MODEL).endsWith("data: [DONE]\n\n");
            assertThat(DaemonTest.get(d, "/metrics").body())
                    .contains("tailwatch_proxy_token_usage_count{gen_ai_response_model=\"Qwen3-0.6B-4bit\"");
            assertRecorded(d, "Qwen3-0.6B-4bit", "Qwen3-0.6B-4bit");
        }
    }

    @Test
    void withoutACommandLineThatTellsItTheModelIsUnknown() throws Exception {
        // In-process: the process listening on the port is this test's JVM, whose command line names no --model.
        try (EngineSimulator sim = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, SimulatorOptions
                .defaults("openai").withModel("mlx-community/Qwen3-0.6B-4bit").withTiming(Duration.ofMillis(30), 200)
                .withBatching(32, SimulatorOptions.DEFAULT_HUB_MODELS));
             Daemon d = TodaysMlxLmServerTest.daemon(sim, "{first_token: 1s, total: 1400ms}", false)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> Double.valueOf(1.0)
                    .equals(d.hub().snapshot().value(ProbeMetrics.PROBE_SUCCESS, AttrKeys.ENGINE, "mlx")));
            assertRecorded(d, EngineClient.UNKNOWN_MODEL, null);
            assertThat(sim.requests()).isNotEmpty().allSatisfy(b -> assertThat(b.has("model")).isFalse());
        }
    }

    /** The request-model label, window and status say {@code model}; the response-model label {@code answered}. */
    private static void assertRecorded(Daemon d, String model, String answered) throws Exception {
        List<Point> windows = d.hub().snapshot().of(ProbeMetrics.WINDOW_SAMPLES);
        assertThat(windows).isNotEmpty().allSatisfy(p -> assertThat(p.attributes().get(AttrKeys.MODEL)).isEqualTo(model));
        String metrics = DaemonTest.get(d, "/metrics").body();
        assertThat(metrics).doesNotContain(EngineClient.UNNAMED_MODEL)
                .contains("gen_ai_request_model=\"" + model + "\"");
        if (answered != null) {
            assertThat(metrics).contains("gen_ai_response_model=\"" + answered + "\"");
        } else {
            // absent: a histogram renders an attribute only some series carry as an empty label
            assertThat(metrics).contains("gen_ai_response_model=\"\"").doesNotContainPattern("gen_ai_response_model=\"[^\"]");
        }
        String status = DaemonTest.get(d, "/api/v1/status").body();
        assertThat(status).doesNotContain(EngineClient.UNNAMED_MODEL);
        JsonNode scenario = Json.MAPPER.readTree(status).findValue("scenarios").get(0);
        assertThat(scenario.path("last").path("model").asText()).isEqualTo(model);
        assertThat(scenario.path("windows").get(0).path("model").asText()).isEqualTo(model);
        // The status screen and diagnose name the window engine/model/scenario from the same series.
        String url = "http://127.0.0.1:" + d.port();
        // (the signals they read come with the rules' next evaluation)
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> assertThat(
                command("status", "--url", url)).contains("mlx/", model + "/", "interactive"));
        assertThat(command("status", "--url", url)).doesNotContain(EngineClient.UNNAMED_MODEL);
        assertThat(command("diagnose", "--url", url, "--json")).doesNotContain(EngineClient.UNNAMED_MODEL);
    }

    private static String command(String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        picocli.CommandLine cl = io.tailwatch.cli.TailwatchCommand.commandLine();
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(new java.io.StringWriter(), true));
        cl.execute(args);
        return out.toString();
    }
}
