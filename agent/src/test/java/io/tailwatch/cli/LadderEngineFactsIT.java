package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.SimulatorChild;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatedMlxLm;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ladder records what the engine says about itself (version, GGUF format and file type) and its
 * parallelism (llama.cpp's slots), which decides how latency grows with concurrency: in the summary,
 * the CSV, the gate report and the history.
 */
class LadderEngineFactsIT {
    @TempDir
    Path tmp;

    @Test
    void aLadderOnATwoSlotLlamaCppServerRecordsTwoSlotsAndTheEnginesFacts() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withModel("tiny-random-llama-Q8_0").withSlots(2)
                        .withTiming(Duration.ofMillis(10), 400))) {
            Path out = tmp.resolve("ladder");
            Path db = tmp.resolve("history.db");
            Map<String, String> env = Map.of("TAILWATCH_DATA_DIR", tmp.resolve("data").toString());
            AgentProcess.Result r = AgentProcess.run(env, "ladder", "--url", "http://127.0.0.1:" + sim.port(), "--api", "openai",
                    "--levels", "1,2", "--requests-per-level", "2", "--max-tokens", "4", "--prompt-tokens", "8",
                    "--out", out.toString(), "--history-db", db.toString(), "--force", "--quiet");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode meta = new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("metadata");
            assertThat(meta.get("engine_version").asText()).isEqualTo("b6000-sim");
            assertThat(meta.get("model_format").asText()).isEqualTo("gguf");
            assertThat(meta.get("quantization").asText()).isEqualTo("Q8_0");
            assertThat(meta.get("engine_parallelism").asInt()).isEqualTo(2);
            assertThat(meta.get("engine_parallelism_source").asText()).isEqualTo("llama.cpp /props total_slots");

            List<String> csv = Files.readAllLines(out.resolve("requests.csv"));
            assertThat(csv.get(0)).endsWith(",engine_parallelism");
            assertThat(csv.subList(1, csv.size())).allSatisfy(l -> assertThat(l).endsWith(",2"));
            assertThat(Files.readString(out.resolve("report.md")))
                    .contains("Engine parallelism: 2 requests at once (llama.cpp /props total_slots).");

            AgentProcess.Result h = AgentProcess.run(env, "history", "--history-db", db.toString(), "--json");
            assertThat(h.exitCode()).as(h.stderr()).isZero();
            JsonNode runs = new ObjectMapper().readTree(h.stdout());
            assertThat(runs.findValues("engine_parallelism")).isNotEmpty().allSatisfy(v -> assertThat(v.asInt()).isEqualTo(2));
        }
    }

    /**
     * Today's mlx_lm.server has no version endpoint: the ladder records the version its answers tell in
     * system_fingerprint. It names no model (so that none of the cached ones is loaded), and the server's answers
     * echo the placeholder it was given, default_model: that is never recorded. Here the process listening on the
     * port is this test's JVM, whose command line tells no --model: the model is unknown (null, an empty CSV cell).
     */
    @Test
    void aLadderOnTodaysMlxLmRecordsTheVersionFromItsFingerprintAndNoPlaceholderForTheModel() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withModel("mlx-community/Sim-Llama-3-8B-4bit")
                        .withTiming(Duration.ofMillis(10), 400).withBatching(32, SimulatorOptions.DEFAULT_HUB_MODELS))) {
            Path out = tmp.resolve("mlx-ladder");
            JsonNode meta = mlxLadder(sim.port(), out);
            assertThat(meta.get("engine_version").asText()).isEqualTo("0.32.0 (mlx 0.32.1, applegpu_g15s)");
            assertThat(meta.get("model").isNull()).as("%s", meta).isTrue();
            assertThat(sim.requests()).isNotEmpty().allSatisfy(b -> assertThat(b.has("model")).as(b.toString()).isFalse());
            assertThat(sim.modelLoads()).as("no cached model was swapped in").isZero();
            List<String> csv = Files.readAllLines(out.resolve("requests.csv"));
            int col = List.of(csv.get(0).split(",")).indexOf("model");
            assertThat(csv.subList(1, csv.size())).isNotEmpty().allSatisfy(l -> assertThat(l.split(",", -1)[col]).isEmpty());
        }
    }

    /** Started with --model, the server's command line tells the model a run that names none is served by. */
    @Test
    void aLadderOnTodaysMlxLmRecordsTheModelItsServerWasStartedWith() throws Exception {
        int port = SimulatorChild.freePort();
        try (SimulatorChild child = SimulatorChild.start(SimulatedMlxLm.class, port, List.of("/opt/homebrew/bin/mlx_lm.server",
                "--model", "mlx-community/Sim-Llama-3-8B-4bit", "--port", Integer.toString(port)))) {
            Path out = tmp.resolve("mlx-served-ladder");
            JsonNode meta = mlxLadder(port, out);
            assertThat(meta.get("model").asText()).isEqualTo("mlx-community/Sim-Llama-3-8B-4bit");
            List<String> csv = Files.readAllLines(out.resolve("requests.csv"));
            int col = List.of(csv.get(0).split(",")).indexOf("model");
            assertThat(csv.subList(1, csv.size())).isNotEmpty()
                    .allSatisfy(l -> assertThat(l.split(",", -1)[col]).isEqualTo("mlx-community/Sim-Llama-3-8B-4bit"));
        }
    }

    /** Runs a two-level ladder on the mlx_lm server at {@code port}; returns its summary's metadata. */
    private JsonNode mlxLadder(int port, Path out) throws Exception {
        AgentProcess.Result r = AgentProcess.run(Map.of("TAILWATCH_DATA_DIR", tmp.resolve("data").toString()), "ladder",
                "--url", "http://127.0.0.1:" + port, "--api", "openai", "--levels", "1,2", "--requests-per-level", "2",
                "--max-tokens", "4", "--prompt-tokens", "8", "--out", out.toString(), "--no-history", "--force", "--quiet");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        for (String f : List.of("summary.json", "requests.csv", "report.md")) {
            assertThat(Files.readString(out.resolve(f))).as(f).doesNotContain(io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL);
        }
        return new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("metadata");
    }
}
