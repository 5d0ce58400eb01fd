package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.host.ProcessTable;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.testing.SimulatorChild;
import io.tailwatch.tools.sim.SimulatedVllmMlx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * vllm-mlx's batch size, which it publishes nowhere, read from its server's command line: the simple engine runs
 * one request at a time; with continuous batching the smaller of --max-num-seqs and --completion-batch-size (256
 * and 32 unless given); a registry of models, the module entry point with batching, or a command line cut before a
 * flag leave it unknown. End to end: the daemon finds the server process listening on the engine's port.
 */
class VllmMlxServeArgsTest {
    private static final String PY = "/opt/homebrew/opt/python@3.12/bin/python3.12";
    private static final String CLI = "/opt/homebrew/bin/vllm-mlx";

    private static VllmMlxServeArgs.Batch batch(String... args) {
        return VllmMlxServeArgs.batch(List.of(args));
    }

    @Test
    void theBatchSizeFollowsTheServersFlagsAndDefaults() {
        assertThat(batch(PY, CLI, "serve", "mlx-community/Qwen3-8B-4bit", "--port", "8000"))
                .isEqualTo(new VllmMlxServeArgs.Batch(1, "simple engine (no --continuous-batching): one generation at a time"));
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching").size()).isEqualTo(32);
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching").basis())
                .isEqualTo("continuous batching: --max-num-seqs 256 (default), --completion-batch-size 32 (default)");
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching", "--max-num-seqs", "8").size()).isEqualTo(8);
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching", "--max-num-seqs=64", "--completion-batch-size", "48")
                .size()).isEqualTo(48);
        assertThat(batch(PY, "-m", "vllm_mlx.server", "--model", "m", "--port", "8000").size()).isEqualTo(1);
    }

    @Test
    void whatTheCommandLineDoesNotTellIsUnknown() {
        assertThat(batch(PY, CLI, "serve", "--models-config", "models.yaml", "--continuous-batching")).isNull();
        assertThat(batch(PY, "-m", "vllm_mlx.server", "--model", "m", "--continuous-batching")).as("defaults differ by model kind").isNull();
        assertThat(batch(PY, "-m", "uvicorn", "app:app")).isNull();
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching", "--max-num-seqs", "0")).isNull();
        assertThat(VllmMlxServeArgs.batch(null)).isNull();
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching", "--completion-batch-size", "4"))
                .as("below the prefill batch (8): a multimodal model would decode 8 at once, a text model 4").isNull();
        assertThat(batch(PY, CLI, "serve", "m", "--continuous-batching", "--completion-batch-size", "4",
                "--prefill-batch-size", "2").size()).isEqualTo(4);
        // Cut at the table's bound: a flag that may sit in the cut-off part is not taken as its default.
        List<String> cut = new ArrayList<>(List.of(PY, CLI, "serve", "m", "--continuous-batching", "--max-num-seqs", "8"));
        cut.addAll(Collections.nCopies(ProcessTable.MAX_ARGS - cut.size(), "--trust-remote-code"));
        assertThat(VllmMlxServeArgs.batch(cut)).isNull();
        List<String> cutSimple = new ArrayList<>(List.of(PY, CLI, "serve", "m"));
        cutSimple.addAll(Collections.nCopies(ProcessTable.MAX_ARGS - cutSimple.size(), "--trust-remote-code"));
        assertThat(VllmMlxServeArgs.batch(cutSimple)).as("--continuous-batching may be past the cut").isNull();
        // Read up to the table's byte bound: the last argument may be the start of a longer one ("12" of "128").
        List<String> head = List.of(PY, CLI, "serve", "", "--continuous-batching", "--completion-batch-size", "64",
                "--max-num-seqs");
        String model = "/models/" + "m".repeat(ProcessTable.MAX_ARG_BYTES - bytes(head) - "/models/".length() - 3);
        List<String> byBytes = new ArrayList<>(head);
        byBytes.set(3, model);
        byBytes.add("12");
        assertThat(bytes(byBytes)).isEqualTo(ProcessTable.MAX_ARG_BYTES);
        assertThat(VllmMlxServeArgs.batch(byBytes)).as("the last value may be cut").isNull();
        byBytes.set(3, model.substring(1));
        assertThat(VllmMlxServeArgs.batch(byBytes).size()).as("one byte below the bound: read whole").isEqualTo(12);
    }

    /** Bytes of a command line as the process table reads it: each argument and its NUL. */
    private static int bytes(List<String> args) {
        return args.stream().mapToInt(a -> a.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1).sum();
    }

    @Test
    void theDaemonReadsTheBatchSizeFromTheServerProcessListeningOnTheEnginesPort() throws Exception {
        assertThat(readBatch("serve", "mlx-community/Qwen3-0.6B-4bit", "--continuous-batching", "--max-num-seqs", "12",
                "--completion-batch-size", "10")).isEqualTo(10.0);
        assertThat(readBatch("serve", "mlx-community/Qwen3-0.6B-4bit")).isEqualTo(1.0);
    }

    /** Starts the look-alike as a child process with these arguments and returns the batch size the daemon reports. */
    private static double readBatch(String... serveArgs) throws Exception {
        int port = SimulatorChild.freePort();
        List<String> args = new ArrayList<>(List.of(serveArgs));
        args.addAll(List.of("--host", "127.0.0.1", "--port", Integer.toString(port)));
        try (SimulatorChild child = SimulatorChild.start(SimulatedVllmMlx.class, port, args);
             Daemon d = VllmMlxAndLmStudioSignalsTest.daemon(port, "vmlx", false, "1s")) {
            JsonNode[] details = new JsonNode[1];
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                details[0] = VllmMlxAndLmStudioSignalsTest.signals(d).path("details");
                assertThat(details[0].path("batch_size_from").asText()).as("%s", VllmMlxAndLmStudioSignalsTest.signals(d)).isEqualTo("command_line");
            });
            assertThat(details[0].path("batch_size_basis").asText()).isNotBlank();
            return details[0].path("batch_size").asDouble();
        }
    }
}
