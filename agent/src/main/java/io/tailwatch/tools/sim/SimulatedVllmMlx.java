package io.tailwatch.tools.sim;

import java.util.List;

/**
 * A vllm-mlx look-alike started the way vllm-mlx is ({@code serve MODEL [--host H] [--port P]
 * [--continuous-batching] [--max-num-seqs N] [--completion-batch-size N]}), for tests that need a server process
 * whose command line says how it was started: the simulator's {@code vllm_mlx} flavour generating as many requests
 * at once as the real server would (one without {@code --continuous-batching}; with it the smaller of
 * {@code --max-num-seqs}, 256 unless given, and {@code --completion-batch-size}, 32 unless given, at most the
 * simulator's 64 slots). Flags it does not use are skipped. Runs until it is terminated.
 */
public final class SimulatedVllmMlx {
    private SimulatedVllmMlx() {
    }

    public static void main(String[] args) throws Exception {
        SimulatedRunner.untilTerminated(start(List.of(args)));
    }

    static EngineSimulator start(List<String> args) throws java.io.IOException {
        int serve = args.indexOf("serve");
        if (serve < 0 || serve + 1 >= args.size()) {
            throw new IllegalArgumentException("usage: serve MODEL [--host H] [--port P] [--continuous-batching] ...");
        }
        String model = args.get(serve + 1);
        String host = "127.0.0.1";
        int port = 8000;
        boolean batching = false;
        int seqs = 256;
        int completion = 32;
        for (int i = serve + 2; i < args.size(); i++) {
            String v = i + 1 < args.size() ? args.get(i + 1) : null;
            switch (args.get(i)) {
                case "--host" -> host = v;
                case "--port" -> port = Integer.parseInt(v);
                case "--max-num-seqs" -> seqs = Integer.parseInt(v);
                case "--completion-batch-size" -> completion = Integer.parseInt(v);
                case "--continuous-batching" -> {
                    batching = true;
                    continue;
                }
                default -> {
                    continue;
                }
            }
            i++;
        }
        int slots = batching ? Math.min(64, Math.min(seqs, completion)) : 1;
        SimulatorOptions o = SimulatorOptions.defaults("openai").withModel(model).withSlots(slots);
        EngineSimulator sim = EngineSimulator.start("openai", "vllm_mlx", host, port, o);
        sim.wire(VllmMlxWire.class).batched(batching);
        return sim;
    }
}
