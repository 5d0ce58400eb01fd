package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/**
 * Every --api option of the command line takes its values from the engine API registry and lists them
 * in its help; kv-budget asks the engine client for the model's shape.
 */
class EngineApiOptionsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    private static void collect(CommandLine c, List<CommandLine> out) {
        out.add(c);
        for (CommandLine sub : c.getSubcommands().values()) {
            if (!(sub.getCommandSpec().userObject() instanceof CommandLine.HelpCommand)) {
                collect(sub, out);
            }
        }
    }

    @Test
    void everyApiOptionListsEveryApiInItsHelp() {
        List<CommandLine> all = new ArrayList<>();
        collect(TailwatchCommand.commandLine(), all);
        List<String> withApi = new ArrayList<>();
        for (CommandLine c : all) {
            OptionSpec api = c.getCommandSpec().findOption("--api");
            if (api == null) {
                continue;
            }
            withApi.add(c.getCommandName());
            List<String> candidates = new ArrayList<>();
            api.completionCandidates().forEach(candidates::add);
            assertThat(candidates).as(c.getCommandName()).containsAll(EngineApi.names());
            String usage = c.getUsageMessage(CommandLine.Help.Ansi.OFF);
            for (String name : EngineApi.names()) {
                assertThat(usage).as(c.getCommandName() + " --help").contains(name);
            }
        }
        assertThat(withApi).contains("probe", "simulate", "bench", "ladder", "kv-budget");
    }

    @Test
    void anUnknownApiIsAUsageErrorListingTheValidOnes() {
        for (String[] args : List.of(new String[] {"probe", "--url", "http://127.0.0.1:9", "--api", "vllm"},
                new String[] {"simulate", "--api", "vllm", "--listen", "127.0.0.1:0"},
                new String[] {"bench", "--url", "http://127.0.0.1:9", "--api", "vllm"})) {
            HistoryCommandTest.Run r = HistoryCommandTest.run(args);
            assertThat(r.code()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", args)).contains("--api").contains(EngineApi.choices())
                    .contains("vllm");
        }
    }

    @Test
    void kvBudgetReadsTheShapeThroughTheEngineClient() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0,
                SimulatorOptions.defaults("ollama").withTiming(Duration.ofMillis(1), 2000))) {
            String url = "http://127.0.0.1:" + sim.port();
            HistoryCommandTest.Run ok = HistoryCommandTest.run("kv-budget", "--url", url, "--model",
                    SimulatorOptions.DEFAULT_OLLAMA_MODEL, "--context", "8192", "--memory", "64GiB", "--weights", "5GiB",
                    "--json");
            assertThat(ok.code()).as(ok.err()).isZero();
            JsonNode j = JSON.readTree(ok.out());
            // 32 layers x 8 KV heads x (128 + 128) x 2 B (f16)
            assertThat(j.get("bytes_per_token").asLong()).isEqualTo(32L * 8 * 256 * 2);
            assertThat(j.get("architecture").asText()).contains("llama").contains("32 layers");

            HistoryCommandTest.Run missing = HistoryCommandTest.run("kv-budget", "--url", url, "--model", "nope");
            assertThat(missing.code()).isEqualTo(1);
            assertThat(missing.err()).contains("POST " + url + "/api/show: HTTP 404: model 'nope' not found");
        }
    }

    @Test
    void aConfiguredEnginesConnectTimeoutIsTheOneTheCommandsUse(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        try (io.tailwatch.testing.FullAcceptQueue q = new io.tailwatch.testing.FullAcceptQueue()) {
            java.nio.file.Path cfg = tmp.resolve("tailwatch.yaml");
            java.nio.file.Files.writeString(cfg, "engines:\n  - {name: slow, api: ollama, url: \"http://127.0.0.1:" + q.port()
                    + "\", connect_timeout: 300ms}\n");
            HistoryCommandTest.Run r = HistoryCommandTest.run("kv-budget", "--config", cfg.toString(), "--engine", "slow",
                    "--model", "m");
            assertThat(r.code()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).contains("/api/show").containsIgnoringCase("connect");
            // the engine's 300 ms, not the 2 s default: the deadline the exchange used is the one it names
            assertThat(r.err()).contains("within 300 ms").doesNotContain("within 2000 ms");
        }
    }

    @Test
    void kvBudgetAgainstAnApiThatTellsNoShapeIsAUsageError() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"))) {
            HistoryCommandTest.Run r = HistoryCommandTest.run("kv-budget", "--url", "http://127.0.0.1:" + sim.port(),
                    "--api", "openai", "--model", SimulatorOptions.DEFAULT_OPENAI_MODEL);
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("openai API does not tell a model's architecture").contains("--layers");
            assertThat(sim.requests()).as("nothing was posted to the engine").isEmpty();
        }
    }
}
