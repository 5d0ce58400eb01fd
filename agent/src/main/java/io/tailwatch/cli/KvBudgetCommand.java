package io.tailwatch.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.config.Config;
import io.tailwatch.config.Units;
import io.tailwatch.daemon.Json;
import io.tailwatch.kv.KvCacheMath;
import io.tailwatch.kv.ModelShape;
import io.tailwatch.probe.EngineClients;
import io.tailwatch.probe.HttpTransport;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** tailwatch kv-budget: KV-cache bytes per token, per context length, and the safe --max-kv-size. */
@Command(name = "kv-budget", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = {
        "KV-cache bytes per token, per context, and a safe --max-kv-size.",
        "KV-cache memory arithmetic from an explicit architecture (--layers --kv-heads --head-dim) or from a",
        "model served by Ollama (--url/--engine with --model, read from /api/show).",
        "bytes/token = sum over layers of (key_length + value_length) x kv_heads x bytes per element;",
        "safe max tokens = floor((memory - os reserve - weights - runtime) x safety / bytes per token)."})
public final class KvBudgetCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions config;

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

    @Option(names = "--url", paramLabel = "URL", description = "Ollama base URL to read the architecture from.")
    String url;

    @Option(names = "--engine", paramLabel = "NAME", description = "Ollama engine from the config to read the architecture from.")
    String engine;

    @Option(names = "--model", paramLabel = "M", description = "Model to look up with /api/show.")
    String model;

    @Option(names = "--context", paramLabel = "N,N,...", defaultValue = "4096,32768,131072", description = "Context lengths to size (default: ${DEFAULT-VALUE}).")
    String context;

    @Option(names = "--memory", paramLabel = "SIZE", description = "Total memory of the host, e.g. 192GiB.")
    String memory;

    @Option(names = "--weights", paramLabel = "SIZE", description = "Model weights in memory, e.g. 10GiB.")
    String weights;

    @Option(names = "--os-reserve", paramLabel = "SIZE", defaultValue = "10GiB", description = "Memory kept for the OS (default: ${DEFAULT-VALUE}).")
    String osReserve;

    @Option(names = "--runtime", paramLabel = "SIZE", defaultValue = "2GiB", description = "Engine runtime overhead (default: ${DEFAULT-VALUE}).")
    String runtime;

    @Option(names = "--safety", paramLabel = "X", defaultValue = "0.8", description = "Safety factor in (0, 1] (default: ${DEFAULT-VALUE}).")
    double safety;

    @Option(names = "--json", description = "Print JSON: bytes_per_token, contexts[] {tokens, bytes}, safe_max_tokens.")
    boolean json;

    @Override
    public Integer call() {
        double bpe;
        long perToken;
        String source;
        List<Long> contexts;
        Long safeMax = null;
        try {
            if (bytesPerElement != null && cacheType != null) {
                throw new IllegalArgumentException("give --bytes-per-element or --cache-type, not both");
            }
            bpe = bytesPerElement != null ? bytesPerElement : KvCacheMath.bytesPerElement(cacheType == null ? "f16" : cacheType);
            contexts = CapacitySupport.parseCounts("--context", context);
            boolean explicit = layers != null || kvHeads != null || headDim != null;
            boolean remote = url != null || engine != null;
            if (explicit == remote) {
                throw new IllegalArgumentException("give either --layers, --kv-heads and --head-dim, or --url/--engine with --model");
            }
            if (explicit) {
                if (layers == null || kvHeads == null || headDim == null) {
                    throw new IllegalArgumentException("--layers, --kv-heads and --head-dim go together");
                }
                perToken = KvCacheMath.bytesPerToken(layers, kvHeads, headDim, bpe);
                source = String.format(Locale.ROOT, "%d layers x %d KV heads x head dim %d x 2 (K and V) x %s B",
                        layers, kvHeads, headDim, trim(bpe));
            } else {
                ModelShape shape = shapeFromOllama();
                perToken = KvCacheMath.bytesPerToken(shape.kvHeadsPerLayer().stream().mapToInt(Integer::intValue).toArray(),
                        shape.keyLength(), shape.valueLength(), bpe);
                boolean uniform = shape.kvHeadsPerLayer().stream().distinct().count() == 1;
                source = String.format(Locale.ROOT, "%s (%s): %d layers, KV heads %s, key %d + value %d, %s B per element",
                        model, shape.architecture(), shape.layers(),
                        uniform ? String.valueOf(shape.kvHeadsPerLayer().get(0)) : shape.kvHeadsPerLayer().toString(),
                        shape.keyLength(), shape.valueLength(), trim(bpe));
            }
            if (memory != null || weights != null) {
                if (memory == null || weights == null) {
                    throw new IllegalArgumentException("--memory and --weights go together");
                }
                safeMax = KvCacheMath.safeMaxTokens(bytes("--memory", memory), bytes("--weights", weights),
                        bytes("--os-reserve", osReserve), bytes("--runtime", runtime), safety, perToken);
            }
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        } catch (RemoteFailure e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
        if (json) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            root.put("bytes_per_token", perToken);
            ArrayNode arr = root.putArray("contexts");
            for (long t : contexts) {
                ObjectNode c = arr.addObject();
                c.put("tokens", t);
                c.put("bytes", KvCacheMath.contextBytes(t, perToken));
            }
            if (safeMax == null) {
                root.putNull("safe_max_tokens");
            } else {
                root.put("safe_max_tokens", safeMax);
            }
            System.out.println(Json.write(root));
            return TailwatchCommand.EXIT_OK;
        }
        System.out.println("architecture: " + source);
        System.out.printf(Locale.ROOT, "KV bytes per token: %d (%s)%n", perToken, Units.formatBytes(perToken));
        for (long t : contexts) {
            long b = KvCacheMath.contextBytes(t, perToken);
            System.out.printf(Locale.ROOT, "  %9d tokens: %s%n", t, Units.formatBytes(b));
        }
        if (safeMax != null) {
            System.out.printf(Locale.ROOT, "safe max KV tokens: %d = floor((%s - %s OS - %s weights - %s runtime) x %s / %d B)%n",
                    safeMax, memory, osReserve, weights, runtime, trim(safety), perToken);
            System.out.printf(Locale.ROOT, "use --max-kv-size %d or less%n", safeMax);
            for (long t : contexts) {
                System.out.printf(Locale.ROOT, "  context %d: %s%n", t, t <= safeMax ? "fits" : "does NOT fit");
            }
        }
        return TailwatchCommand.EXIT_OK;
    }

    private ModelShape shapeFromOllama() throws RemoteFailure {
        if (model == null) {
            throw new IllegalArgumentException("--model is required with --url/--engine");
        }
        String base;
        String apiKey = null;
        if (engine != null) {
            if (url != null) {
                throw new IllegalArgumentException("give --url or --engine, not both");
            }
            Config cfg = config.loadOrReport();
            if (cfg == null) {
                throw new IllegalArgumentException("config problems (see above)");
            }
            EngineTarget t = EngineTarget.resolve(cfg, engine, null, null, null);
            if (!"ollama".equals(t.api())) {
                throw new IllegalArgumentException("--engine " + engine + " is api " + t.api()
                        + "; only Ollama tells the architecture (/api/show). Give --layers, --kv-heads and --head-dim.");
            }
            base = t.url().toString();
            apiKey = t.apiKey();
        } else {
            EngineTarget t = EngineTarget.resolve(null, null, url, "ollama", null);
            base = t.url().toString();
        }
        java.net.URI show = java.net.URI.create(base.replaceAll("/+$", "") + "/api/show");
        Duration deadline = Duration.ofSeconds(10);
        HttpTransport.JsonReply r = HttpTransport.json(show, Map.of("model", model), apiKey,
                EngineClients.DEFAULT_CONNECT_TIMEOUT, deadline);
        if (r.error() != null) {
            throw new RemoteFailure("POST " + show + ": " + r.error());
        }
        if (r.status() / 100 != 2) {
            String msg = r.body() != null && r.body().has("error") ? r.body().get("error").asText() : HttpTransportClip.clip(r.rawBody());
            throw new RemoteFailure("POST " + show + ": HTTP " + r.status() + (msg.isEmpty() ? "" : ": " + msg));
        }
        if (r.body() == null || !r.body().has("model_info")) {
            throw new RemoteFailure("POST " + show + ": the answer has no model_info (is this Ollama?)");
        }
        try {
            return ModelShape.fromModelInfo(r.body().get("model_info"));
        } catch (IllegalArgumentException e) {
            throw new RemoteFailure("POST " + show + ": cannot size the KV cache of " + model + ": " + e.getMessage());
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

    private static final class HttpTransportClip {
        static String clip(String s) {
            if (s == null) {
                return "";
            }
            s = s.replaceAll("\\s+", " ").trim();
            return s.length() <= 200 ? s : s.substring(0, 200) + "...";
        }
    }
}
