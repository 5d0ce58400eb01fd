package io.tailwatch.core.kv;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code kv-budget}'s arithmetic: which figure sizes each input and where it came from, and the plan that
 * follows. Pure: the command gathers the {@link Facts} (options, a checkpoint, an engine's
 * {@link EngineReport}, a sample of this host) and prints the result.
 *
 * <p>Precedence, each later one winning: weights from the checkpoint's safetensors files, then from the
 * engine, then {@code --weights}; the model's context from the checkpoint's {@code max_position_embeddings},
 * then the engine's {@code n_ctx_train}. Memory and the GPU limit come from the options, else from this host,
 * and the host's GPU limit is used only beside the host's own memory (never this Mac's limit beside another
 * machine's {@code --memory}). The engine's served context joins the contexts sized.
 *
 * @param memorySource    where the memory figure came from, null when an option gave it
 * @param gpuLimitSource  likewise for the GPU limit
 * @param weightsSource   likewise for the weights
 * @param safeMaxTokens   null when no ceiling is known or the cache stops growing ({@code unlimited})
 */
public record KvBudget(KvPlan plan, List<Long> contexts, Long memoryBytes, String memorySource, Long gpuLimitBytes,
                       String gpuLimitSource, Long weightsBytes, String weightsSource, Long modelContext,
                       String modelContextSource, Long safeMaxTokens, boolean unlimited) {
    public static final String HOST_MEMORY = "this host";
    public static final String HOST_GPU_LIMIT = "this Mac's Metal recommendedMaxWorkingSetSize";
    public static final String CHECKPOINT_WEIGHTS = "the checkpoint's safetensors files";
    public static final String ENGINE_WEIGHTS = "the GGUF file, llama.cpp /v1/models meta.size";

    public KvBudget {
        contexts = List.copyOf(contexts);
    }

    public KvPlan.Sizing sizing() {
        return plan.sizing();
    }

    /**
     * What sizes the budget. A null figure was not given (options) or not known (checkpoint, engine, host).
     *
     * @param checkpoint  the checkpoint the shape came from, null otherwise
     * @param engine      what the serving engine reported, null when none was asked
     * @param noGpuLimit  {@code --gpu-limit none}
     * @param hostMemory  this host's total memory, read only when {@code memoryOption} is null
     * @param hostGpuLimit this host's GPU working-set limit, likewise
     */
    public record Facts(KvPlan.Sizing sizing, List<Long> contexts, HfCheckpoint checkpoint, EngineReport engine,
                        Long weightsOption, Long memoryOption, Long hostMemory, Long gpuLimitOption, boolean noGpuLimit,
                        Long hostGpuLimit, long osReserveBytes, long runtimeBytes, double safety) {
        public Facts {
            contexts = List.copyOf(contexts);
        }
    }

    /** Bytes per cached element and the words the description adds after it ("" when an option chose it). */
    public record ElementSize(double bytes, String source) {
        /**
         * {@code --bytes-per-element} (which wins over a cache type), else {@code --cache-type}, else the checkpoint's dtype (not for a
         * llama.cpp cache, which is f16 unless -ctk/-ctv say otherwise, whatever the checkpoint's dtype), else f16.
         */
        public static ElementSize choose(Double bytesPerElement, String cacheType, HfCheckpoint checkpoint, boolean llamaCppCache) {
            if (bytesPerElement != null) {
                return new ElementSize(bytesPerElement, "");
            }
            if (cacheType != null) {
                return new ElementSize(KvCacheMath.bytesPerElement(cacheType), "");
            }
            Double fromCheckpoint = checkpoint == null || llamaCppCache ? null : checkpoint.dtypeBytes();
            if (fromCheckpoint != null) {
                return new ElementSize(fromCheckpoint, " (" + checkpoint.dtype() + ")");
            }
            return new ElementSize(KvCacheMath.bytesPerElement("f16"),
                    llamaCppCache ? " (llama.cpp's default f16 cache; give --cache-type for other -ctk/-ctv)" : "");
        }
    }

    public static KvBudget of(Facts f) {
        Long weights = null;
        String weightsSource = null;
        Long modelContext = null;
        String modelContextSource = "max_position_embeddings";
        if (f.checkpoint() != null) {
            modelContext = f.checkpoint().contextLength();
            if (f.checkpoint().weightsBytes() != null) {
                weights = f.checkpoint().weightsBytes();
                weightsSource = CHECKPOINT_WEIGHTS;
            }
        }
        List<Long> contexts = f.contexts();
        EngineReport e = f.engine();
        if (e != null) {
            if (e.weightsBytes() != null) {
                weights = e.weightsBytes();
                weightsSource = ENGINE_WEIGHTS;
            }
            if (e.contextTrain() != null) {
                modelContext = e.contextTrain();
                modelContextSource = "n_ctx_train";
            }
            Long served = e.servedContext();
            if (served != null && !contexts.contains(served)) {
                contexts = new ArrayList<>(contexts);
                contexts.add(served);
                contexts.sort(null);
            }
        }
        if (f.weightsOption() != null) {
            weights = f.weightsOption();
            weightsSource = null;
        }
        Long memory = f.memoryOption();
        String memorySource = null;
        Long gpuLimit = f.noGpuLimit() ? null : f.gpuLimitOption();
        String gpuLimitSource = null;
        if (memory == null) {
            if (f.hostMemory() != null) {
                memory = f.hostMemory();
                memorySource = HOST_MEMORY;
            }
            if (f.gpuLimitOption() == null && !f.noGpuLimit() && f.hostGpuLimit() != null) {
                gpuLimit = f.hostGpuLimit();
                gpuLimitSource = HOST_GPU_LIMIT;
            }
        }
        KvPlan plan = new KvPlan(f.sizing(), memory, weights, gpuLimit, f.osReserveBytes(), f.runtimeBytes(), f.safety());
        KvPlan.Ceiling binding = plan.binding();
        boolean unlimited = binding != null && binding.unlimited();
        Long safeMax = binding == null || unlimited ? null : binding.safeMaxTokens();
        return new KvBudget(plan, contexts, memory, memorySource, gpuLimit, gpuLimitSource, weights, weightsSource,
                modelContext, modelContextSource, safeMax, unlimited);
    }
}
