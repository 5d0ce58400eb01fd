package io.tailwatch.tools.sim;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How the Ollama flavour starts its runner: the program (llama.cpp's {@code llama-server}, or the simulator's own
 * {@link SimulatedRunner} in a child JVM) and the flags {@code ollama serve} gives it. The command line has
 * Ollama's shape (llm/llama_server.go): {@code --model PATH --port PORT --host 127.0.0.1 --no-webui --offline
 * -c CTX*N -np N --log-verbosity 4 --no-log-prefix --no-log-timestamps}, then {@code extraArgs} (Ollama adds
 * {@code -t N} only when a thread count is set, and so on).
 *
 * @param program       the executable and any arguments before Ollama's flags
 * @param modelPath     the model file (a GGUF for llama-server; any name for the simulated runner)
 * @param parallel      slots ({@code -np}), Ollama's {@code OLLAMA_NUM_PARALLEL}
 * @param contextLength context per slot ({@code num_ctx}); llama-server gets {@code -c contextLength * parallel}
 * @param extraArgs     flags after Ollama's
 * @param environment   variables added to the runner's environment
 * @param loadTimeout   how long the runner may take to answer {@code /health} 200
 */
public record RunnerSpec(List<String> program, String modelPath, int parallel, int contextLength, List<String> extraArgs,
                         Map<String, String> environment, Duration loadTimeout) {
    public RunnerSpec {
        if (program == null || program.isEmpty()) {
            throw new IllegalArgumentException("runner program must be given");
        }
        if (parallel < 1 || parallel > 64) {
            throw new IllegalArgumentException("runner slots (-np) must be 1..64");
        }
        if (contextLength < 16 || contextLength > 1 << 20) {
            throw new IllegalArgumentException("runner context length must be 16..1048576");
        }
        program = List.copyOf(program);
        extraArgs = extraArgs == null ? List.of() : List.copyOf(extraArgs);
        environment = environment == null ? Map.of() : Map.copyOf(environment);
        if (loadTimeout == null || loadTimeout.isNegative() || loadTimeout.isZero()) {
            throw new IllegalArgumentException("runner load timeout must be positive");
        }
    }

    /** Ollama's default context per slot on a Mac below 24 GiB of GPU memory. */
    public static final int DEFAULT_CONTEXT = 4096;

    /** llama.cpp's server as Ollama runs it: {@code exe} (or a wrapper that execs it) serving {@code gguf}. */
    public static RunnerSpec llamaServer(Path exe, Path gguf, int parallel, int contextLength, List<String> extraArgs) {
        return new RunnerSpec(List.of(exe.toString()), gguf.toString(), parallel, contextLength, extraArgs, null,
                Duration.ofSeconds(60));
    }

    /**
     * The simulator's llama-server look-alike ({@link SimulatedRunner}) in a child JVM of this one, generating at the
     * pace of {@code timing}. The class path goes through the environment so the command line keeps Ollama's shape.
     */
    public static RunnerSpec simulated(String model, int parallel, int contextLength, SimulatorOptions timing) {
        String javaExe = ProcessHandle.current().info().command().orElse("java");
        List<String> extra = List.of(SimulatedRunner.TTFT_FLAG, timing.ttft().toMillis() + "ms",
                SimulatedRunner.RATE_FLAG, Double.toString(timing.tokensPerSecond()));
        return new RunnerSpec(List.of(javaExe, "-Xmx48m", "-XX:TieredStopAtLevel=1", SimulatedRunner.class.getName()),
                model, parallel, contextLength, extra,
                Map.of("CLASSPATH", System.getProperty("java.class.path", "")), Duration.ofSeconds(60));
    }

    /** The whole command line for a runner listening on {@code port}. */
    public List<String> commandLine(int port) {
        List<String> cmd = new ArrayList<>(program);
        cmd.addAll(List.of("--model", modelPath, "--port", Integer.toString(port), "--host", "127.0.0.1",
                "--no-webui", "--offline", "-c", Integer.toString(contextLength * parallel),
                "-np", Integer.toString(parallel), "--log-verbosity", "4", "--no-log-prefix", "--no-log-timestamps"));
        cmd.addAll(extraArgs);
        return cmd;
    }
}
