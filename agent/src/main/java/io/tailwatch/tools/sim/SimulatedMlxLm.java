package io.tailwatch.tools.sim;

import java.time.Duration;
import java.util.List;

/**
 * An mlx_lm.server look-alike (the simulator's mlx_lm 0.28+ flavour: batching by model string, a Hugging Face cache
 * in /v1/models, HTTP/1.0) run as its own process from mlx_lm.server's command line, for tests that need a server
 * process whose command line says which model it serves. The arguments after the class name are the server's own
 * as the process table shows them ({@code mlx_lm.server --model M ...} or {@code -m mlx_lm server --model M ...}):
 * {@code --model} (the served model), {@code --host}, {@code --port} (8080 unless given) and
 * {@code --decode-concurrency} (32 unless given, at most the simulator's 64) are used, anything else is skipped.
 * Without {@code --model} it serves the simulator's default model (the real server serves none until a request
 * names one). Runs until it is terminated.
 */
public final class SimulatedMlxLm {
    private SimulatedMlxLm() {
    }

    static EngineSimulator start(List<String> args) throws java.io.IOException {
        SimulatorOptions o = SimulatorOptions.defaults("openai");
        String model = o.model();
        String host = "127.0.0.1";
        int port = 8080;
        int decode = 32;
        for (int i = 0; i + 1 < args.size(); i++) {
            String v = args.get(i + 1);
            switch (args.get(i)) {
                case "--model" -> model = v;
                case "--host" -> host = v;
                case "--port" -> port = Integer.parseInt(v);
                case "--decode-concurrency" -> decode = Integer.parseInt(v);
                default -> {
                    continue;
                }
            }
            i++;
        }
        o = o.withModel(model).withTiming(Duration.ofMillis(30), 200)
                .withBatching(Math.max(1, Math.min(64, decode)), SimulatorOptions.DEFAULT_HUB_MODELS);
        return EngineSimulator.start("openai", "mlx_lm", host, port, o);
    }

    /** Serves until the process is terminated. */
    public static void main(String[] args) throws Exception {
        SimulatedRunner.untilTerminated(start(List.of(args)));
    }
}
