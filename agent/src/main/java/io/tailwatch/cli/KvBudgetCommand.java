package io.tailwatch.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.kv.EngineReport;
import io.tailwatch.core.kv.GpuMemoryNow;
import io.tailwatch.core.kv.HfCheckpoint;
import io.tailwatch.core.kv.KvBudget;
import io.tailwatch.core.kv.KvPlan;
import io.tailwatch.core.kv.ModelShape;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.EngineQueryException;
import io.tailwatch.core.units.Units;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** tailwatch kv-budget: KV-cache bytes per token, per context length, and the safe --max-kv-size. */
@Command(name = "kv-budget", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = {
        "KV-cache bytes per token, per context, and a safe --max-kv-size.",
        "KV-cache memory arithmetic from an explicit architecture (--layers --kv-heads --head-dim), from a",
        "Hugging Face checkpoint as MLX engines load it (--model DIR or --model ORG/NAME in the local Hugging Face",
        "cache: config.json and the safetensors files), or from a model served by Ollama (--url/--engine with --model,",
        "read from /api/show). Against a llama.cpp server (--api openai, the API it speaks, or --api llamacpp to",
        "require one) the served context, slots and GGUF weights' size come from its /props and /v1/models; the",
        "shape then comes from --model (checkpoint) or --layers etc.",
        "Sliding-window layers (Gemma 2/3, Mistral) keep only their window: such figures are",
        "marked as estimates. Host memory is read from this host when --memory is not given.",
        "bytes/token = sum over layers of (key_length + value_length) x kv_heads x bytes per element;",
        "safe max tokens = floor((memory - os reserve - weights - runtime) x safety / bytes per token)."})
public final class KvBudgetCommand extends PrintingCommand {

    @Mixin
    ConfigOptions config;

    private PrintWriter out;
    private PrintWriter err;

    @Option(names = "--layers", paramLabel = "N", description = "Number of layers (block_count).")
    Integer layers;

    @Option(names = "--kv-heads", paramLabel = "N", description = "KV heads per layer (head_count_kv).")
    Integer kvHeads;

    @Option(names = "--head-dim", paramLabel = "N", description = "Head size (key and value length).")
    Integer headDim;

    @Option(names = "--bytes-per-element", paramLabel = "B", description = "Bytes per cached element (f16 2, q8_0 1, q4_0 0.5).")
    Double bytesPerElement;

    @Option(names = "--cache-type", paramLabel = "TYPE", description = "KV cache type instead of --bytes-per-element: f32, f16, bf16, q8_0, q4_0 (default f16).")
    String cacheType;

    @Option(names = "--url", paramLabel = "URL", description = "Engine base URL: Ollama (architecture from /api/show) or, "
            + "with --api openai or llamacpp, a llama.cpp server (context, slots and weights from /props and /v1/models).")
    String url;

    /**
     * Not an engine API of its own: an OpenAI-API engine that must tell what it serves (its client's
     * {@code servingReport}, which a llama.cpp server answers from /props and /v1/models); {@code --api openai} asks
     * the same and falls back to the shape options when the engine cannot tell.
     */
    static final String LLAMACPP = "llamacpp";

    /** The values --api takes: every engine API, and llamacpp. */
    static final class ApiNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            List<String> names = new ArrayList<>(EngineApi.names());
            names.add(LLAMACPP);
            return names.iterator();
        }
    }

    @Option(names = "--api", paramLabel = "API", completionCandidates = ApiNames.class, description = "Engine API at "
            + "--url/--engine: ${COMPLETION-CANDIDATES} (default ollama). The model's shape comes from the engine when its "
            + "API tells it (Ollama's /api/show); an openai engine that is a llama.cpp server tells what it serves (/props, "
            + "/v1/models), and llamacpp requires that.")
    String api;

    @Option(names = "--engine", paramLabel = "NAME", description = "Engine from the config: Ollama, or a llama.cpp server (api openai).")
    String engine;

    @Option(names = "--model", paramLabel = "PATH_OR_ID", description = "Checkpoint directory or Hugging Face model id "
            + "(ORG/NAME, looked up in $HF_HUB_CACHE, $HF_HOME/hub or ~/.cache/huggingface/hub); with --url/--engine the "
            + "Ollama model to look up with /api/show; with --api llamacpp the checkpoint that gives the shape.")
    String model;

    @Option(names = "--context", paramLabel = "N,N,...", defaultValue = "4096,32768,131072", description = "Context lengths to size (default: ${DEFAULT-VALUE}).")
    String context;

    @Option(names = "--memory", paramLabel = "SIZE", description = "Total memory of the host, e.g. 192GiB (default: read from this host).")
    String memory;

    @Option(names = "--gpu-limit", paramLabel = "SIZE", description = "GPU working-set limit, e.g. 107.52GiB (Metal's "
            + "recommendedMaxWorkingSetSize, which iogpu.wired_limit_mb raises), or none. Default: this Mac's, when --memory "
            + "is read from this host too; none elsewhere. The KV budget is then the tighter of (memory - OS - weights - "
            + "runtime) x safety and (limit - weights - runtime) x safety.")
    String gpuLimit;

    @Option(names = "--weights", paramLabel = "SIZE", description = "Model weights in memory, e.g. 10GiB (default for a checkpoint: its safetensors files).")
    String weights;

    @Option(names = "--os-reserve", paramLabel = "SIZE", defaultValue = "10GiB", description = "Memory kept for the OS (default: ${DEFAULT-VALUE}).")
    String osReserve;

    @Option(names = "--runtime", paramLabel = "SIZE", defaultValue = "2GiB", description = "Engine runtime overhead (default: ${DEFAULT-VALUE}).")
    String runtime;

    @Option(names = "--safety", paramLabel = "X", defaultValue = "0.8", description = "Safety factor in (0, 1] (default: ${DEFAULT-VALUE}).")
    double safety;

    /** Where HF_HUB_CACHE / HF_HOME come from (tests set their own). */
    Map<String, String> env = System.getenv();

    @Option(names = "--json", description = "Print JSON: bytes_per_token, contexts[] {tokens, bytes}, safe_max_tokens.")
    boolean json;

    @Option(names = "--live", description = "Also show the GPU memory in use now: the working-set limit, each engine's "
            + "graphics memory (summed over its processes) and what is left, from the running agent (its /api/v1/status at "
            + "--agent or the config's server.listen), else from a sample of this host. macOS figures: absent elsewhere.")
    boolean live;

    @Option(names = "--agent", paramLabel = "URL", description = "With --live: the agent to ask (default: http:// + server.listen "
            + "of the config, and this host's own sample when no agent answers there).")
    java.net.URI agent;

    /** What the command gathered: the budget, the engine's report when one was asked, the host sample when one was taken. */
    private record Gathered(KvBudget budget, EngineReport server, HostSnapshot host) {
    }

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        this.out = out;
        this.err = err;
        Gathered g;
        GpuMemoryNow now = null;
        try {
            g = gather();
            if (live) {
                now = liveFigures(g.host());
            }
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        } catch (RemoteFailure e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
        Double enginesGpuBytes = g.host() == null ? null : g.host().enginesGpuMemory();
        if (json) {
            ObjectNode root = budgetJson(g.budget(), g.server(), enginesGpuBytes);
            if (now != null) {
                root.set("live", LiveGpuMemory.json(now, g.budget().sizing()));
            }
            out.println(Json.write(root));
        } else {
            printText(g.budget(), g.server(), enginesGpuBytes);
            if (now != null) {
                LiveGpuMemory.print(out, now, g.budget().sizing());
            }
        }
        return TailwatchCommand.EXIT_OK;
    }

    /**
     * The GPU memory in use now: from the agent at --agent (its failure is this command's), else from the agent at
     * the config's listen address, else from {@code host} (the sample already taken) or a new sample of this host.
     */
    private GpuMemoryNow liveFigures(HostSnapshot host) throws RemoteFailure {
        Config cfg = config.loadOrReport();
        if (cfg == null) {
            throw new IllegalArgumentException("config problems (see above)");
        }
        java.net.URI base = agent != null ? agent : java.net.URI.create("http://" + io.tailwatch.core.config.HostPort.format(
                cfg.server().host().equals("0.0.0.0") ? "127.0.0.1" : cfg.server().host(), cfg.server().port()));
        String token = cfg.server().authToken();
        try {
            com.fasterxml.jackson.databind.JsonNode status = new io.tailwatch.tools.runbook.AgentClient(base,
                    token == null || token.isBlank() ? null : token, LiveGpuMemory.AGENT_TIMEOUT).get("/api/v1/status");
            return LiveGpuMemory.fromStatus("the running agent at " + LogGuard.escape(base.toString(), 200), status.path("host"));
        } catch (java.io.IOException e) {
            if (agent != null) {
                throw new RemoteFailure("--agent " + LogGuard.escape(base.toString(), 200) + ": " + e.getMessage());
            }
        }
        return LiveGpuMemory.fromSnapshot("this host, sampled now (no agent answered at "
                + LogGuard.escape(base.toString(), 200) + ")", host != null ? host : hostSample());
    }

    /** The facts from the options, the checkpoint, the engine and this host, and the budget they give. */
    private Gathered gather() throws RemoteFailure {
        if (bytesPerElement != null && cacheType != null) {
            throw new IllegalArgumentException("give --bytes-per-element or --cache-type, not both");
        }
        List<Long> contexts = CapacitySupport.parseCounts("--context", context);
        boolean explicit = layers != null || kvHeads != null || headDim != null;
        if (api != null && !api.equals(LLAMACPP) && EngineApi.find(api).isEmpty()) {
            throw new IllegalArgumentException("--api must be one of " + String.join(", ", new ApiNames()) + ", got "
                    + LogGuard.escape(api, 40));
        }
        boolean llamacpp = LLAMACPP.equals(api);
        if (llamacpp && url == null && engine == null) {
            throw new IllegalArgumentException("--api llamacpp needs --url URL or --engine NAME");
        }
        EngineReport server = servedByEngine(llamacpp);
        if (server != null && !explicit && model == null) {
            printServer(server);
            throw new IllegalArgumentException("llama.cpp's /props and /v1/models give no layer or KV-head counts: "
                    + "give --model DIR or ORG/NAME (the model's Hugging Face config.json) or --layers, --kv-heads "
                    + "and --head-dim for the shape");
        }
        boolean remote = server == null && (url != null || engine != null);
        boolean checkpoint = !explicit && !remote && model != null;
        if ((explicit ? 1 : 0) + (remote ? 1 : 0) + (checkpoint ? 1 : 0) != 1) {
            throw new IllegalArgumentException("give one of: --layers, --kv-heads and --head-dim; --model DIR or ORG/NAME "
                    + "(a Hugging Face checkpoint); or --url/--engine with --model (an engine that tells the shape, Ollama)");
        }
        HfCheckpoint ckpt = checkpoint ? HfCheckpoint.read(HfCheckpoint.locate(model, env)) : null;
        KvBudget.ElementSize element = KvBudget.ElementSize.choose(bytesPerElement, cacheType, ckpt, server != null);
        KvPlan.Sizing sizing;
        if (explicit) {
            if (layers == null || kvHeads == null || headDim == null) {
                throw new IllegalArgumentException("--layers, --kv-heads and --head-dim go together");
            }
            sizing = KvPlan.explicit(layers, kvHeads, headDim, element.bytes());
        } else if (checkpoint) {
            sizing = KvPlan.checkpoint(ckpt, element.bytes(), element.source());
        } else {
            sizing = KvPlan.shape(model, shapeFromEngine(), element.bytes());
        }
        Long weightsOption = weights == null ? null : bytes("--weights", weights);
        boolean noLimit = gpuLimit != null && gpuLimit.strip().equalsIgnoreCase("none");
        Long gpuLimitOption = null;
        if (gpuLimit != null && !noLimit) {
            gpuLimitOption = bytes("--gpu-limit", gpuLimit);
            if (gpuLimitOption <= 0) {
                throw new IllegalArgumentException("--gpu-limit must be > 0 or none, got " + LogGuard.escape(gpuLimit, 40));
            }
        }
        Long memoryOption = memory == null ? null : bytes("--memory", memory);
        HostSnapshot host = memory == null ? hostSample() : null;
        KvBudget budget = KvBudget.of(new KvBudget.Facts(sizing, contexts, ckpt, server, weightsOption, memoryOption,
                host == null ? null : asLong(host.memoryTotal()), gpuLimitOption, noLimit,
                host == null ? null : asLong(host.gpuMemoryLimit()), bytes("--os-reserve", osReserve), bytes("--runtime", runtime),
                safety));
        return new Gathered(budget, server, host);
    }

    private static Long asLong(Double v) {
        return v == null ? null : v.longValue();
    }

    private static ObjectNode budgetJson(KvBudget b, EngineReport server, Double enginesGpuBytes) {
        KvPlan.Sizing sizing = b.sizing();
        KvPlan plan = b.plan();
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("bytes_per_token", sizing.bytesPerToken());
        root.put("bytes_per_token_beyond_windows", sizing.bytesPerTokenBeyondWindows());
        root.put("estimate", sizing.estimate());
        ArrayNode arr = root.putArray("contexts");
        for (long t : b.contexts()) {
            ObjectNode c = arr.addObject();
            c.put("tokens", t);
            c.put("bytes", sizing.contextBytes(t));
            if (sizing.estimate()) {
                c.put("bytes_if_every_layer_keeps_all", sizing.contextBytesUpperBound(t));
            }
        }
        putOrNull(root, "safe_max_tokens", b.safeMaxTokens());
        root.put("kv_cache_stops_growing", b.unlimited());
        putOrNull(root, "model_context_length", b.modelContext());
        putOrNull(root, "memory_bytes", b.memoryBytes());
        putOrNull(root, "gpu_limit_bytes", b.gpuLimitBytes());
        KvPlan.Ceiling bound = plan.binding();
        if (bound == null) {
            root.putNull("binding");
        } else {
            root.put("binding", bound.kind().wireName());
        }
        ArrayNode ceilings = root.putArray("ceilings");
        for (KvPlan.Ceiling c : plan.ceilings()) {
            ObjectNode x = ceilings.addObject();
            x.put("kind", c.kind().wireName());
            x.put("ceiling_bytes", c.ceilingBytes());
            x.put("budget_bytes", c.budgetBytes());
            if (c.unlimited()) {
                x.putNull("safe_max_tokens");
            } else {
                x.put("safe_max_tokens", c.safeMaxTokens());
            }
        }
        putOrNull(root, "weights_bytes", b.weightsBytes());
        putOrNull(root, "engines_gpu_memory_bytes", asLong(enginesGpuBytes));
        root.put("architecture", sizing.description());
        if (server != null) {
            ObjectNode s = root.putObject("llamacpp");
            putOrNull(s, "n_ctx_per_slot", server.contextPerSlot());
            putOrNull(s, "n_ctx", server.contextTotal());
            putOrNull(s, "total_slots", server.totalSlots() == null ? null : server.totalSlots().longValue());
            putOrNull(s, "served_context", server.servedContext());
            putOrNull(s, "served_context_bytes", server.servedContext() == null ? null
                    : sizing.contextBytes(server.servedContext()));
            s.put("served_context_derived", server.servedContextDerived());
            putOrNull(s, "n_ctx_train", server.contextTrain());
            putOrNull(s, "weights_bytes", server.weightsBytes());
            if (server.modelPath() == null) {
                s.putNull("model_path");
            } else {
                s.put("model_path", server.modelPath());
            }
            ArrayNode notes = s.putArray("missing");
            server.missing().forEach(notes::add);
        }
        return root;
    }

    private void printText(KvBudget b, EngineReport server, Double enginesGpuBytes) {
        KvPlan.Sizing sizing = b.sizing();
        KvPlan plan = b.plan();
        if (server != null) {
            printServer(server);
        }
        out.println("architecture: " + sizing.description());
        if (server != null && server.servedContext() != null) {
            out.printf(Locale.ROOT, "served context: %d tokens%s -> KV cache %s%n", server.servedContext(),
                    server.contextTotal() != null ? " (/props n_ctx)"
                            : server.totalSlots() != null ? " (" + server.contextPerSlot() + " per slot x " + slots(server.totalSlots())
                            + ", derived)" : " (one slot; total_slots not reported)",
                    Units.formatBytes(sizing.contextBytes(server.servedContext())));
        }
        if (sizing.bytesPerTokenBeyondWindows() == sizing.bytesPerToken()) {
            out.printf(Locale.ROOT, "KV bytes per token: %d (%s)%n", sizing.bytesPerToken(),
                    Units.formatBytes(sizing.bytesPerToken()));
        } else {
            out.printf(Locale.ROOT, "KV bytes per token: %d (%s) within the window, %d (%s) beyond it "
                            + "(full-attention layers only)%n", sizing.bytesPerToken(), Units.formatBytes(sizing.bytesPerToken()),
                    sizing.bytesPerTokenBeyondWindows(), Units.formatBytes(sizing.bytesPerTokenBeyondWindows()));
        }
        for (long t : b.contexts()) {
            long bytes = sizing.contextBytes(t);
            String upper = sizing.estimate() && sizing.contextBytesUpperBound(t) != bytes
                    ? "  (every layer in full: " + Units.formatBytes(sizing.contextBytesUpperBound(t)) + ")" : "";
            out.printf(Locale.ROOT, "  %9d tokens: %s%s%n", t, Units.formatBytes(bytes), upper);
        }
        if (sizing.estimate()) {
            out.println("estimate: " + sizing.estimateNote());
        }
        KvPlan.Ceiling bound = plan.binding();
        if (bound == null) {
            out.println("no safe maximum: " + (b.weightsBytes() != null ? "this host's memory is unknown; give --memory SIZE"
                    : "the weights' size is unknown; give --weights SIZE"));
            return;
        }
        String w = weights != null ? weights : Units.formatBytes(b.weightsBytes()) + " (" + b.weightsSource() + ")";
        KvPlan.Ceiling byMemory = plan.memoryCeiling();
        KvPlan.Ceiling byGpu = plan.gpuCeiling();
        String memText = byMemory == null ? null : String.format(Locale.ROOT, "(%s - %s OS - %s weights - %s runtime) x %s",
                memory != null ? memory : Units.formatBytes(b.memoryBytes()) + " (" + b.memorySource() + ")", osReserve, w, runtime,
                trim(safety));
        String gpuText = byGpu == null ? null : String.format(Locale.ROOT, "(%s GPU limit - %s weights - %s runtime) x %s",
                gpuLimit != null ? gpuLimit : Units.formatBytes(b.gpuLimitBytes()) + " (" + b.gpuLimitSource() + ")", w, runtime,
                trim(safety));
        if (byMemory != null && byGpu != null) {
            out.printf(Locale.ROOT, "total memory:          %s = %s of KV cache, %s%n", memText,
                    Units.formatBytes(byMemory.budgetBytes()), tokens(byMemory));
            out.printf(Locale.ROOT, "GPU working-set limit: %s = %s of KV cache, %s%n", gpuText,
                    Units.formatBytes(byGpu.budgetBytes()), tokens(byGpu));
            out.printf(Locale.ROOT, "binds: the %s (%s less for the KV cache than the %s)%n", bound.kind().text(),
                    Units.formatBytes(Math.abs(byMemory.budgetBytes() - byGpu.budgetBytes())),
                    byGpu.equals(bound) ? byMemory.kind().text() : byGpu.kind().text());
        }
        String held = enginesGpuLine(enginesGpuBytes, b.gpuLimitBytes());
        if (held != null) {
            out.println(held);
        }
        String fits = bound.kind() == KvPlan.CeilingKind.GPU_LIMIT ? gpuText : memText;
        if (b.unlimited()) {
            out.printf(Locale.ROOT, "every layer keeps a window that fits in %s: "
                    + "the KV cache stops growing, no context length is limited by it%n", fits);
            return;
        }
        long safeMax = b.safeMaxTokens();
        out.printf(Locale.ROOT, "safe max KV tokens: %d = largest context whose KV cache fits %s%n", safeMax, fits);
        if (server != null) {
            out.printf(Locale.ROOT, "use -c/--ctx-size %d or less (llama.cpp splits it over its %s)%n", safeMax,
                    server.totalSlots() == null ? "slots" : slots(server.totalSlots()));
        } else {
            out.printf(Locale.ROOT, "use --max-kv-size %d or less%n", safeMax);
        }
        if (b.modelContext() != null && safeMax > b.modelContext()) {
            out.printf(Locale.ROOT, "(the model itself is trained for at most %d tokens: %s)%n",
                    b.modelContext(), b.modelContextSource());
        }
        for (long t : b.contexts()) {
            out.printf(Locale.ROOT, "  context %d: %s%n", t, t <= safeMax ? "fits" : "does NOT fit");
        }
    }

    /** One sample of this host, as the daemon takes it: total memory and, on a Mac, the GPU limit. */
    private HostSnapshot hostSample() {
        Config cfg = config.loadOrReport();
        if (cfg == null) {
            throw new IllegalArgumentException("config problems (see above)");
        }
        try (HostReader host = new HostReader(cfg, (String) null)) {
            return host.sample();
        }
    }

    /**
     * The line for the graphics memory the engines' processes hold now (macOS TASK_VM_INFO graphics ledgers,
     * what GpuMemoryLimitNear compares with the limit), or null when this host has no such figure.
     */
    static String enginesGpuLine(Double held, Long limit) {
        if (held == null) {
            return null;
        }
        return "GPU memory the engines hold now: " + Units.formatBytes(held.longValue())
                + (limit == null || limit <= 0 ? "" : String.format(Locale.ROOT, " of the %s working-set limit (%.0f %%)",
                Units.formatBytes(limit), 100.0 * held / limit));
    }

    private static String tokens(KvPlan.Ceiling c) {
        return c.unlimited() ? "no context limited" : c.safeMaxTokens() + " tokens";
    }

    private static void putOrNull(ObjectNode o, String key, Long v) {
        if (v == null) {
            o.putNull(key);
        } else {
            o.put(key, v);
        }
    }

    /**
     * What the engine at --url or --engine says it serves, asked through its client (a llama.cpp server tells it
     * in /props and /v1/models), or null when there is no engine or its API cannot tell. {@code required}
     * ({@code --api llamacpp}): an engine that cannot tell is a failure naming the request; otherwise it is left
     * to the shape the engine's API tells (Ollama's /api/show).
     */
    private EngineReport servedByEngine(boolean required) throws RemoteFailure {
        if (url == null && engine == null) {
            return null;
        }
        String openai = EngineApi.OPENAI.wireName();
        EngineTarget t = target(required ? openai : api != null ? api : EngineApi.OLLAMA.wireName());
        if (!required && !openai.equals(t.api())) {
            return null;
        }
        try (EngineClient c = EngineClients.create(openai, t.url(), t.apiKey(), t.connectTimeout())) {
            return c.servingReport(Duration.ofSeconds(10));
        } catch (EngineQueryException e) {
            if (required) {
                throw new RemoteFailure(e.getMessage());
            }
            return null;
        }
    }

    /** The engine named by --engine (from the config) or at --url (taken as {@code api}, no key). */
    private EngineTarget target(String api) {
        if (engine == null) {
            return EngineTarget.resolve(null, null, url, api, null);
        }
        if (url != null) {
            throw new IllegalArgumentException("give --url or --engine, not both");
        }
        Config cfg = config.loadOrReport();
        if (cfg == null) {
            throw new IllegalArgumentException("config problems (see above)");
        }
        return EngineTarget.resolve(cfg, engine, null, null, null);
    }

    private static String slots(int n) {
        return n + (n == 1 ? " slot" : " slots");
    }

    /** What the llama.cpp server reported, and what it did not. */
    private void printServer(EngineReport s) {
        out.println("llama.cpp server: model " + (s.modelPath() == null ? "(model_path not reported)"
                : LogGuard.escape(s.modelPath(), 200))
                + ", context " + (s.contextPerSlot() == null ? "unknown" : s.contextPerSlot() + " per slot")
                + ", slots " + (s.totalSlots() == null ? "not reported" : s.totalSlots())
                + (s.contextTrain() == null ? "" : ", trained for " + s.contextTrain())
                + (s.weightsBytes() == null ? "" : ", weights " + Units.formatBytes(s.weightsBytes())));
        for (String n : s.missing()) {
            out.println("  missing: " + LogGuard.escape(n, 300));
        }
    }

    /** The shape as the engine at --url/--engine reports it, through its client. */
    private ModelShape shapeFromEngine() throws RemoteFailure {
        if (model == null) {
            throw new IllegalArgumentException("--model is required with --url/--engine");
        }
        EngineTarget t = target(api != null ? api : EngineApi.OLLAMA.wireName());
        try (EngineClient c = EngineClients.create(t.api(), t.url(), t.apiKey(), t.connectTimeout())) {
            return c.modelShape(model, Duration.ofSeconds(10));
        } catch (EngineQueryException e) {
            if (e.unsupported()) {
                throw new IllegalArgumentException((engine != null ? "--engine " + engine + " is api " + t.api() + ": " : "")
                        + e.getMessage() + ". Give --layers, --kv-heads and --head-dim, or --model DIR or ORG/NAME.");
            }
            throw new RemoteFailure(e.getMessage());
        }
    }

    private static long bytes(String option, String text) {
        try {
            return Units.bytes(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + e.getMessage());
        }
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    /** The engine could not be asked or did not answer usefully. */
    static final class RemoteFailure extends Exception {
        RemoteFailure(String message) {
            super(message);
        }
    }
}
