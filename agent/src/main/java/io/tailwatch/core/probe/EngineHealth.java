package io.tailwatch.core.probe;

import java.time.Instant;
import java.util.List;

/**
 * One health and inventory check.
 *
 * @param up       the engine answered its health endpoint (or said it is loading)
 * @param loading  the engine reports that it is still loading a model
 * @param provider gen_ai.provider.name: ollama, mlx_lm, lm_studio, llama_cpp, vllm, or openai when unknown
 * @param models   loaded models (for OpenAI-compatible servers without a loaded state: the served ones)
 * @param inventoryKnown false when the engine is up but its model list could not be read this time
 *                       (then {@code models} is empty and must not be reported as zero models)
 * @param error    why it is down (null when up)
 * @param limit    when an answer was over one of the agent's bounds ({@code over_limit}): which, with
 *                 the numbers (the engine is up; only the part within the bound was read), else null
 * @param modelsTotal how many models the engine listed; {@code models} keeps at most {@link #MAX_MODELS}
 */
public record EngineHealth(Instant checkedAt, boolean up, boolean loading, String version, String provider,
                           List<LoadedModel> models, boolean inventoryKnown, String error, String limit,
                           long modelsTotal) {
    /** Models kept per check: every one becomes a few series, so the inventory is bounded. */
    public static final int MAX_MODELS = 64;

    public EngineHealth {
        modelsTotal = Math.max(modelsTotal, models == null ? 0 : models.size());
        models = models == null ? List.of() : List.copyOf(models.size() > MAX_MODELS ? models.subList(0, MAX_MODELS)
                : models);
    }

    public EngineHealth(Instant checkedAt, boolean up, boolean loading, String version, String provider,
                        List<LoadedModel> models, boolean inventoryKnown, String error) {
        this(checkedAt, up, loading, version, provider, models, inventoryKnown, error, null, -1);
    }

    public static EngineHealth down(Instant at, String provider, String error) {
        return new EngineHealth(at, false, false, null, provider, List.of(), false, error);
    }
}
