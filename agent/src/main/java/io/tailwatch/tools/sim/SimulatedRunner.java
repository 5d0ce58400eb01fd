package io.tailwatch.tools.sim;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A llama-server look-alike the Ollama flavour can run as its runner child when no real llama.cpp is at hand:
 * the simulator's llamacpp flavour ({@code /health}, {@code /slots}, {@code /completion}, {@code /props}) with
 * {@code -np} slots on {@code --host}:{@code --port}, taking llama-server's command line (flags it does not use
 * are skipped) plus the pace flags {@value #TTFT_FLAG} and {@value #RATE_FLAG}. Runs until it is terminated.
 */
public final class SimulatedRunner {
    static final String TTFT_FLAG = "--sim-ttft";
    static final String RATE_FLAG = "--sim-tokens-per-second";

    private SimulatedRunner() {
    }

    public static void main(String[] args) throws Exception {
        untilTerminated(start(List.of(args)));
    }

    /** Serves until the process is terminated, then closes {@code sim}. */
    static void untilTerminated(EngineSimulator sim) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sim.close();
            stopped.countDown();
        }, "tailwatch-sim-stop"));
        stopped.await();
    }

    /** Starts the look-alike from llama-server's flags. */
    static EngineSimulator start(List<String> args) throws java.io.IOException {
        String model = "model.gguf";
        String host = "127.0.0.1";
        int port = -1;
        int slots = 1;
        Duration ttft = Duration.ofMillis(150);
        double rate = 35;
        for (int i = 0; i + 1 < args.size(); i++) {
            String v = args.get(i + 1);
            switch (args.get(i)) {
                case "--model", "-m" -> model = v;
                case "--host" -> host = v;
                case "--port" -> port = Integer.parseInt(v);
                case "-np", "--parallel" -> slots = Integer.parseInt(v);
                case TTFT_FLAG -> ttft = Duration.ofMillis(Long.parseLong(v.replace("ms", "")));
                case RATE_FLAG -> rate = Double.parseDouble(v);
                default -> {
                    continue;
                }
            }
            i++;
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("--port must be 1..65535");
        }
        SimulatorOptions o = SimulatorOptions.defaults("openai").withModel(model).withSlots(slots).withTiming(ttft, rate);
        return EngineSimulator.start("openai", "llamacpp", host, port, o);
    }
}
