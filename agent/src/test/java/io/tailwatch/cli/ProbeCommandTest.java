package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** `tailwatch probe` against the simulator: JSON fields, table, exit codes. */
class ProbeCommandTest {
    record Run(int exit, String out) {
    }

    static Run run(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            int exit = TailwatchCommand.commandLine().execute(args);
            return new Run(exit, buf.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(old);
        }
    }

    @Test
    void jsonHasTheDocumentedFieldsAndExitZero() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0,
                SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(20), 400))) {
            Run r = run("probe", "--url", "http://127.0.0.1:" + sim.port(), "--api", "ollama", "--max-tokens", "6",
                    "--prompt-tokens", "40", "--json");
            assertThat(r.exit()).isZero();
            JsonNode j = new ObjectMapper().readTree(r.out());
            for (String f : new String[] {"success", "error_type", "time_to_headers_seconds", "ttft_seconds", "e2e_seconds",
                    "decode_tokens_per_second", "output_tokens", "input_tokens", "token_source", "server_prompt_seconds",
                    "server_decode_tokens_per_second", "load_seconds"}) {
                assertThat(j.has(f)).as(f).isTrue();
            }
            assertThat(j.get("success").asBoolean()).isTrue();
            assertThat(j.get("error_type").isNull()).isTrue();
            assertThat(j.get("output_tokens").asInt()).isEqualTo(6);
            assertThat(j.get("token_source").asText()).isEqualTo("engine");
            // The simulator reports eval_duration = last - first token + one interval (2.5 ms at 400 tokens/s);
            // the reading must be eval_count over exactly that span, whatever the machine's load made it.
            EngineSimulator.Generation g = sim.generations().get(0);
            double span = (g.lastTokenAt() - g.firstTokenAt() + 2_500_000L) / 1e9;
            assertThat(j.get("server_decode_tokens_per_second").asDouble())
                    .isCloseTo(g.tokens() / span, org.assertj.core.data.Percentage.withPercentage(0.5));
            assertThat(sim.requests().get(0).at("/messages/0/content").asText().split("\\s+").length).isBetween(30, 50);
        }
    }

    @Test
    void failedProbeExitsOneAndUsageErrorsTwo() throws Exception {
        int port;
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"))) {
            port = sim.port();
        }
        Run r = run("probe", "--url", "http://127.0.0.1:" + port, "--api", "openai", "--model", "m");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("connect_refused");
        // Without --model against the dead port: the failure is the refused connection, not a missing model.
        for (String api : new String[] {"openai", "ollama"}) {
            Run noModel = run("probe", "--url", "http://127.0.0.1:" + port, "--api", api, "--json");
            assertThat(noModel.exit()).isEqualTo(1);
            assertThat(noModel.out()).contains("\"error_type\" : \"connect_refused\"").doesNotContain("no model given");
        }
        // An engine that answers but has nothing loaded still says so.
        try (EngineSimulator empty = EngineSimulator.start("ollama", "127.0.0.1", 0,
                SimulatorOptions.defaults("ollama").withLoadTime(java.time.Duration.ofSeconds(30)))) {
            Run idle = run("probe", "--url", "http://127.0.0.1:" + empty.port(), "--api", "ollama", "--json");
            assertThat(idle.out()).contains("\"error_type\" : \"_OTHER\"")
                    .contains("no model given and none loaded");
        }
        assertThat(run("probe", "--url", "http://127.0.0.1:1", "--api", "grpc").exit()).isEqualTo(2);
        assertThat(run("probe", "--api", "openai").exit()).isEqualTo(2);
    }
}
