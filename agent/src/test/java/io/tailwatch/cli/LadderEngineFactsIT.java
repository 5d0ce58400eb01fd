package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.sim.EngineSimulator;
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
     * system_fingerprint; it names no model (so that none of the cached ones is loaded), and the server's answers
     * echo the name it was given, default_model, which is what the report records.
     */
    @Test
    void aLadderOnTodaysMlxLmRecordsTheVersionFromItsFingerprintAndTheServedModel() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withModel("mlx-community/Sim-Llama-3-8B-4bit")
                        .withTiming(Duration.ofMillis(10), 400).withBatching(32, SimulatorOptions.DEFAULT_HUB_MODELS))) {
            Path out = tmp.resolve("mlx-ladder");
            AgentProcess.Result r = AgentProcess.run(Map.of("TAILWATCH_DATA_DIR", tmp.resolve("data").toString()), "ladder",
                    "--url", "http://127.0.0.1:" + sim.port(), "--api", "openai", "--levels", "1,2", "--requests-per-level", "2",
                    "--max-tokens", "4", "--prompt-tokens", "8", "--out", out.toString(), "--no-history", "--force", "--quiet");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode meta = new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("metadata");
            assertThat(meta.get("engine_version").asText()).isEqualTo("0.32.0 (mlx 0.32.1, applegpu_g15s)");
            assertThat(meta.get("model").asText()).isEqualTo(io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL);
            assertThat(sim.requests()).isNotEmpty().allSatisfy(b -> assertThat(b.has("model")).as(b.toString()).isFalse());
            assertThat(sim.modelLoads()).as("no cached model was swapped in").isZero();
        }
    }
}
