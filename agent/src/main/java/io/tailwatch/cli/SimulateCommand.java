package io.tailwatch.cli;

import io.tailwatch.core.config.HostPort;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Runs the engine simulator in the foreground until SIGTERM or SIGINT. */
@Command(name = "simulate", description = {"Run a simulated LLM engine that speaks the Ollama or OpenAI wire format,",
        "with set TTFT, decode speed, slots, errors, stalls and load time (fire drills, demos, tests)."})
public final class SimulateCommand extends PrintingCommand {

    @Option(names = "--api", required = true, paramLabel = "API", completionCandidates = EngineApiNames.class,
            converter = EngineApiNames.class,
            description = "Engine API to simulate: ${COMPLETION-CANDIDATES}.")
    String api;

    @Option(names = "--listen", required = true, paramLabel = "HOST:PORT", description = "Where to listen (port 0: any free port).")
    String listen;

    @Option(names = "--model", paramLabel = "NAME", description = "Model name to serve (default: a Llama-3-8B-shaped model).")
    String model;

    @Option(names = "--ttft", defaultValue = "150ms", converter = DurationConverter.class, paramLabel = "D",
            description = "Time to first token once a slot takes the request (default: ${DEFAULT-VALUE}).")
    Duration ttft;

    @Option(names = "--tokens-per-second", defaultValue = "35", paramLabel = "R", description = "Decode speed (default: ${DEFAULT-VALUE}).")
    double tokensPerSecond;

    @Option(names = "--slots", paramLabel = "N",
            description = {"The serial server: N requests generated at once, the rest queue without response headers",
                    "(llama.cpp, Ollama, and mlx_lm.server before 0.28; default 1). With the mlx_lm flavour it selects",
                    "that older server instead of the batching one."})
    Integer slots;

    @Option(names = "--decode-concurrency", defaultValue = "32", paramLabel = "N",
            description = {"mlx_lm flavour (0.28 and later, the default without --slots): requests decoded in one batch;",
                    "only requests with equal model strings share it (default: ${DEFAULT-VALUE})."})
    int decodeConcurrency;

    @Option(names = "--hub-models", split = ",", paramLabel = "ID",
            description = {"Batching mlx_lm flavour: the Hugging Face cache /v1/models lists before the served model;",
                    "a request naming one loads it (default: three small mlx-community models)."})
    java.util.List<String> hubModels;

    @Option(names = "--no-hub", description = "Batching mlx_lm flavour: no hub directory, so /v1/models answers 200 with an empty body.")
    boolean noHub;

    @Option(names = "--error-rate", defaultValue = "0.0", paramLabel = "P", description = "Share of requests answered HTTP 500 (default: ${DEFAULT-VALUE}).")
    double errorRate;

    @Option(names = "--stall-rate", defaultValue = "0.0", paramLabel = "P", description = "Share of requests that stall once mid-stream (default: ${DEFAULT-VALUE}).")
    double stallRate;

    @Option(names = "--stall", defaultValue = "2s", converter = DurationConverter.class, paramLabel = "D",
            description = "Length of a stall (default: ${DEFAULT-VALUE}).")
    Duration stall;

    @Option(names = "--load-time", defaultValue = "0s", converter = DurationConverter.class, paramLabel = "D",
            description = {"Model load time: ollama on the first request; openai at start (llama.cpp and the serial mlx_lm answer",
                    "/health 503 meanwhile, the batching mlx_lm says ok and holds requests), and per model swap (default: ${DEFAULT-VALUE})."})
    Duration loadTime;

    @Option(names = "--keep-alive", defaultValue = "5m", converter = DurationConverter.class, paramLabel = "D",
            description = {"With --api ollama: how long a model stays loaded after its last request when the request sets no",
                    "keep_alive (OLLAMA_KEEP_ALIVE); then it is unloaded and /api/ps drops it (default: ${DEFAULT-VALUE})."})
    Duration keepAlive;

    @Option(names = "--flavor", paramLabel = "NAME", description = "With --api openai: whose identity endpoints to answer: "
            + "mlx_lm (default: mlx_lm.server 0.28 and later, batching; with --slots the older serial one), llamacpp (/props), "
            + "lmstudio (/api/v0/models, and LM Studio 0.4's /api/v1/models), vllm (/version) or vllm_mlx (vllm-mlx with "
            + "--enable-metrics: /metrics, /v1/status, /health), as tailwatch detect sees them.")
    String flavor;

    @Option(names = "--seed", paramLabel = "N", description = "Random seed for errors and stalls (default: time based).")
    Long seed;

    @Option(names = "--runner", paramLabel = "PROGRAM",
            description = {"With --api ollama: generate in a runner child process started as Ollama starts one (llama-server",
                    "--model M --port <free loopback port> -np N ...) on the first request: PROGRAM is llama.cpp's",
                    "llama-server (needs --runner-model), or 'sim' for the simulator's own look-alike (a child JVM)."})
    String runner;

    @Option(names = "--runner-model", paramLabel = "FILE", description = "With --runner llama-server: the GGUF model it serves.")
    java.nio.file.Path runnerModel;

    @Option(names = "--parallel", defaultValue = "1", paramLabel = "N",
            description = "With --runner: the runner's slots (-np, OLLAMA_NUM_PARALLEL; default: ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = "--context", defaultValue = "4096", paramLabel = "N",
            description = "With --runner: context per slot (num_ctx; the runner gets -c N x slots; default: ${DEFAULT-VALUE}).")
    int context;

    @Option(names = "--runner-threads", paramLabel = "N", description = "With --runner llama-server: -t N (as Ollama passes num_thread).")
    Integer runnerThreads;

    /** The runner of --runner, checked: only with the Ollama API; llama-server needs its model file. */
    private io.tailwatch.tools.sim.RunnerSpec runnerSpec(SimulatorOptions o) {
        if (!"ollama".equals(api)) {
            throw new IllegalArgumentException("--runner: only with --api ollama (Ollama runs runners)");
        }
        if ("sim".equals(runner)) {
            return io.tailwatch.tools.sim.RunnerSpec.simulated(o.model(), parallel, context, o);
        }
        if (runnerModel == null) {
            throw new IllegalArgumentException("--runner " + runner + ": --runner-model FILE (a GGUF) is required");
        }
        java.util.List<String> extra = runnerThreads == null ? java.util.List.of()
                : java.util.List.of("-t", Integer.toString(runnerThreads));
        return io.tailwatch.tools.sim.RunnerSpec.llamaServer(java.nio.file.Path.of(runner), runnerModel, parallel, context, extra);
    }

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        HostPort hp;
        SimulatorOptions o;
        try {
            hp = HostPort.parse(listen);
            SimulatorOptions d = SimulatorOptions.defaults(api);
            o = new SimulatorOptions(model == null ? d.model() : model, ttft, tokensPerSecond, slots == null ? 1 : slots,
                    errorRate, stallRate, stall, loadTime, seed == null ? d.seed() : seed);
            if ("openai".equals(api) && (flavor == null || "mlx_lm".equals(flavor)) && slots == null) {
                o = o.withBatching(decodeConcurrency, noHub ? null
                        : hubModels == null ? SimulatorOptions.DEFAULT_HUB_MODELS : hubModels);
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        io.tailwatch.tools.sim.RunnerSpec spec = null;
        if (runner != null) {
            try {
                spec = runnerSpec(o);
            } catch (IllegalArgumentException e) {
                err.println(e.getMessage());
                return TailwatchCommand.EXIT_CONFIG;
            }
        }
        EngineSimulator sim;
        try {
            sim = spec != null ? EngineSimulator.startOllama(hp.host(), hp.port(), o, spec) : EngineSimulator.start(api, flavor != null ? flavor : "ollama".equals(api) ? "ollama" : "mlx_lm", hp.host(),
                    hp.port(), o);
        } catch (IllegalArgumentException e) {
            err.println("--flavor: " + e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        } catch (IOException e) {
            err.println("cannot listen on " + hp + ": " + e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
        if ("ollama".equals(api)) {
            sim.wire(io.tailwatch.tools.sim.OllamaWire.class).keepAlive(keepAlive);
        }
        out.println("simulating " + api + " engine with model " + o.model() + " on http://"
                + HostPort.format(hp.host(), sim.port()));
        out.flush();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sim.close();
            stopped.countDown();
        }, "tailwatch-sim-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return TailwatchCommand.EXIT_OK;
    }
}
