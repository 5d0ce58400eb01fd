package io.tailwatch.core.kv;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The one headroom model: how much KV cache fits, against which ceiling. {@code kv-budget} prints a
 * plan, the daemon publishes each engine's {@link Headroom} and the status page and the
 * {@code GpuMemoryLimitNear} rule read what it publishes. Pure arithmetic, no I/O.
 *
 * <p>Two ceilings. Total memory: {@code (memory - os reserve - weights - runtime) x safety}. The GPU
 * working-set limit (Metal's {@code recommendedMaxWorkingSetSize}, which follows the
 * {@code iogpu.wired_limit_mb} sysctl): {@code (limit - weights - runtime) x safety}; the OS reserve is
 * not taken off it because the limit is already what Metal leaves the GPU after the OS. The tighter one
 * binds; on a Mac it is usually the GPU limit (107.52 GiB of a 128 GiB M5 Max).
 *
 * @param sizing       what one token costs, layer by layer
 * @param memoryBytes  total memory, null when unknown
 * @param weightsBytes the weights in memory, null when unknown
 * @param gpuLimitBytes the GPU working-set limit, null when there is none (not a Mac) or it is unknown
 * @param osReserveBytes memory kept for the OS
 * @param runtimeBytes the engine's runtime overhead
 * @param safety       the safety factor in (0, 1]
 */
public record KvPlan(Sizing sizing, Long memoryBytes, Long weightsBytes, Long gpuLimitBytes, long osReserveBytes,
                     long runtimeBytes, double safety) {

    /** Which ceiling a budget comes from. */
    public enum CeilingKind {
        MEMORY("total memory"),
        GPU_LIMIT("GPU working-set limit");

        private final String text;

        CeilingKind(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }

        /** As the JSON output and the API write it: memory, gpu_limit. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One ceiling: what it leaves for the KV cache and the largest context that fits it.
     *
     * @param safeMaxTokens -1 when every layer keeps a window that fits (the cache stops growing)
     */
    public record Ceiling(CeilingKind kind, long ceilingBytes, long budgetBytes, long safeMaxTokens) {
        public boolean unlimited() {
            return safeMaxTokens < 0;
        }
    }

    /**
     * What is sized: per-layer bytes per token and each layer's window (0 = whole context).
     *
     * @param noCache layers that keep no per-token cache
     */
    public record Sizing(String description, long layerBytesPerToken, List<Integer> windows, List<Integer> noCache,
                         boolean estimate, String estimateNote) {
        public Sizing {
            windows = List.copyOf(windows);
            noCache = List.copyOf(noCache);
        }

        public long bytesPerToken() {
            return KvCacheMath.windowedContextBytes(1, layerBytesPerToken, windows, noCache);
        }

        /** Per token beyond every window: the full-attention layers only. */
        public long bytesPerTokenBeyondWindows() {
            long n = 0;
            for (int i = 0; i < windows.size(); i++) {
                n += windows.get(i) == 0 && !noCache.contains(i) ? 1 : 0;
            }
            return n * layerBytesPerToken;
        }

        public long contextBytes(long tokens) {
            return KvCacheMath.windowedContextBytes(tokens, layerBytesPerToken, windows, noCache);
        }

        /** Every layer caching the whole context: the upper bound for an engine that ignores the windows. */
        public long contextBytesUpperBound(long tokens) {
            return Math.multiplyExact(tokens, bytesPerToken());
        }
    }

    public KvPlan {
        if (!(safety > 0 && safety <= 1)) {
            throw new IllegalArgumentException("safety must be in (0, 1], was " + safety);
        }
        if (gpuLimitBytes != null && gpuLimitBytes <= 0) {
            throw new IllegalArgumentException("the GPU limit must be > 0, was " + gpuLimitBytes);
        }
    }

    /** Same layers, heads and head size everywhere: {@code 2 x kv heads x head dim x bytes x layers}. */
    public static Sizing explicit(int layers, int kvHeads, int headDim, double bytesPerElement) {
        long perLayer = KvCacheMath.bytesPerToken(1, kvHeads, headDim, bytesPerElement);
        return new Sizing(String.format(Locale.ROOT, "%d layers x %d KV heads x head dim %d x 2 (K and V) x %s B",
                layers, kvHeads, headDim, trim(bytesPerElement)), perLayer, Collections.nCopies(layers, 0), List.of(),
                false, null);
    }

    /** A shape an engine reported (per-layer KV heads, key and value lengths), as one whole-context figure. */
    public static Sizing shape(String model, ModelShape shape, double bytesPerElement) {
        long perToken = KvCacheMath.bytesPerToken(shape.kvHeadsPerLayer().stream().mapToInt(Integer::intValue).toArray(),
                shape.keyLength(), shape.valueLength(), bytesPerElement);
        boolean uniform = shape.kvHeadsPerLayer().stream().distinct().count() == 1;
        return new Sizing(String.format(Locale.ROOT, "%s (%s): %d layers, KV heads %s, key %d + value %d, %s B per element",
                model, shape.architecture(), shape.layers(),
                uniform ? String.valueOf(shape.kvHeadsPerLayer().get(0)) : shape.kvHeadsPerLayer().toString(),
                shape.keyLength(), shape.valueLength(), trim(bytesPerElement)), perToken, List.of(0), List.of(), false, null);
    }

    /** A checkpoint's layers and windows, and a sentence saying what the estimate assumes. */
    public static Sizing checkpoint(HfCheckpoint c, double bytesPerElement, String bpeSource) {
        long perLayer = KvCacheMath.bytesPerToken(1, c.kvHeads(), c.headDim(), bytesPerElement);
        int sliding = c.slidingLayers();
        String layersText = c.layers() + " layers";
        List<String> kinds = new ArrayList<>();
        if (sliding > 0) {
            int w = c.windows().stream().filter(x -> x > 0).findFirst().orElse(0);
            kinds.add(sliding + " with a " + w + "-token sliding window");
            kinds.add(c.fullLayers() + " full");
        }
        if (!c.otherLayers().isEmpty()) {
            kinds.add(c.otherLayers().size() + " without a growing KV cache");
        }
        if (!kinds.isEmpty()) {
            layersText += " (" + String.join(", ", kinds) + ")";
        }
        String desc = String.format(Locale.ROOT, "%s%s: %s x %d KV heads x head dim %d x 2 (K and V) x %s B%s%s",
                c.modelType() == null ? "model" : c.modelType(), " from " + c.source(), layersText, c.kvHeads(), c.headDim(),
                trim(bytesPerElement), bpeSource, c.quantization() == null ? "" : "; weights quantized " + c.quantization());
        String note = null;
        if (c.mixed()) {
            List<String> parts = new ArrayList<>();
            if (sliding > 0) {
                parts.add(sliding + " of " + c.layers() + " layers keep only a sliding window; the figures assume the engine caches "
                        + "just that window for them (mlx_lm's rotating cache and llama.cpp's SWA cache do; an engine that "
                        + "caches every layer in full needs the larger figure shown beside each context)");
            }
            if (!c.otherLayers().isEmpty()) {
                parts.add("layers " + c.otherLayers() + " are not attention layers and are counted as keeping no per-token cache");
            }
            note = String.join("; ", parts);
        }
        return new Sizing(desc, perLayer, c.windows(), c.otherLayers(), c.mixed(), note);
    }

    /** The total-memory ceiling; null when memory or weights are unknown. */
    public Ceiling memoryCeiling() {
        if (memoryBytes == null || weightsBytes == null) {
            return null;
        }
        long budget = KvCacheMath.budgetBytes(memoryBytes, weightsBytes, osReserveBytes, runtimeBytes, safety);
        return ceiling(CeilingKind.MEMORY, memoryBytes, budget);
    }

    /** The GPU working-set ceiling; null when there is no limit or the weights are unknown. */
    public Ceiling gpuCeiling() {
        if (gpuLimitBytes == null || weightsBytes == null) {
            return null;
        }
        long budget = KvCacheMath.budgetBytes(gpuLimitBytes, weightsBytes, 0, runtimeBytes, safety);
        return ceiling(CeilingKind.GPU_LIMIT, gpuLimitBytes, budget);
    }

    /**
     * The ceiling that binds: the one leaving the smaller budget (total memory on a tie, the familiar
     * figure); null when neither is known.
     */
    public Ceiling binding() {
        Ceiling m = memoryCeiling();
        Ceiling g = gpuCeiling();
        if (m == null) {
            return g;
        }
        if (g == null) {
            return m;
        }
        return g.budgetBytes() < m.budgetBytes() ? g : m;
    }

    /** Both known ceilings, total memory first. */
    public List<Ceiling> ceilings() {
        List<Ceiling> out = new ArrayList<>(2);
        Ceiling m = memoryCeiling();
        Ceiling g = gpuCeiling();
        if (m != null) {
            out.add(m);
        }
        if (g != null) {
            out.add(g);
        }
        return out;
    }

    private Ceiling ceiling(CeilingKind kind, long bytes, long budget) {
        long max = KvCacheMath.windowedSafeMaxTokens(budget, sizing.layerBytesPerToken(), sizing.windows(), sizing.noCache());
        return new Ceiling(kind, bytes, budget, max);
    }

    /**
     * A running engine's model against the GPU limit and available memory.
     *
     * @param footprintBytes what the model occupies as its engine reports it (weights and runtime buffers)
     * @param kvContextBytes the KV cache its current context length needs, null when the shape is unknown
     * @param usedBytes      footprint plus context KV: what the GPU limit has to hold
     * @param gpuShare       used / GPU limit, null without a limit or a footprint
     * @param gpuLeftBytes   GPU limit minus used, null without a limit or a footprint
     * @param headroomTokens tokens of KV growth that still fit the tighter of the GPU left and available
     *                       memory; null when neither is known or the shape is unknown
     * @param bound          which of the two binds the headroom, null when the headroom is unknown
     */
    public record Headroom(Double footprintBytes, Double kvContextBytes, Double usedBytes, Double gpuShare,
                           Double gpuLeftBytes, Long headroomTokens, CeilingKind bound) {
    }

    /**
     * The headroom of one loaded model. {@code bytesPerToken} null or not positive: no token figure.
     * {@code footprintHoldsContext}: the footprint already holds the context's KV cache (Ollama's size
     * does: it allocates the cache for its context when it loads the model), so it is not added again.
     * Available memory counts as the memory ceiling (what can still be allocated before paging), the
     * GPU limit minus what the model already holds as the GPU one; the smaller binds.
     */
    public static Headroom headroom(Double bytesPerToken, Double footprintBytes, boolean footprintHoldsContext,
                                    Long contextTokens, Double gpuLimitBytes, Double availableBytes) {
        return headroom(bytesPerToken, footprintBytes, footprintHoldsContext, contextTokens, gpuLimitBytes, availableBytes, null);
    }

    /**
     * As above, with the graphics memory the engines' processes hold now (macOS TASK_VM_INFO graphics
     * ledgers, summed over every engine): what Metal has really allocated against the working-set limit. It is
     * a floor of the used figure: the model's estimate counts only while it is larger (a context not yet
     * filled), the measured memory once the engines hold more (another engine, an unaccounted buffer).
     */
    public static Headroom headroom(Double bytesPerToken, Double footprintBytes, boolean footprintHoldsContext,
                                    Long contextTokens, Double gpuLimitBytes, Double availableBytes, Double graphicsBytes) {
        boolean shape = bytesPerToken != null && bytesPerToken > 0;
        Double kv = shape && contextTokens != null ? bytesPerToken * contextTokens : null;
        Double used = footprintBytes == null ? null : footprintBytes + (kv == null || footprintHoldsContext ? 0 : kv);
        if (graphicsBytes != null && graphicsBytes >= 0 && (used == null || graphicsBytes > used)) {
            used = graphicsBytes;
        }
        Double share = used != null && gpuLimitBytes != null && gpuLimitBytes > 0 ? used / gpuLimitBytes : null;
        Double gpuLeft = used != null && gpuLimitBytes != null && gpuLimitBytes > 0 ? gpuLimitBytes - used : null;
        Long tokens = null;
        CeilingKind bound = null;
        if (shape) {
            Double room = null;
            if (availableBytes != null) {
                room = availableBytes;
                bound = CeilingKind.MEMORY;
            }
            if (gpuLeft != null && (room == null || gpuLeft < room)) {
                room = gpuLeft;
                bound = CeilingKind.GPU_LIMIT;
            }
            if (room != null) {
                tokens = KvCacheMath.headroomTokens(bytesPerToken, room);
            }
        }
        return new Headroom(footprintBytes, kv, used, share, gpuLeft, tokens, bound);
    }

    static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
