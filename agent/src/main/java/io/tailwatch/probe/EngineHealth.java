package io.tailwatch.probe;

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
 */
public record EngineHealth(Instant checkedAt, boolean up, boolean loading, String version, String provider,
                           List<LoadedModel> models, boolean inventoryKnown, String error) {
    public EngineHealth {
        models = models == null ? List.of() : List.copyOf(models);
    }

    public static EngineHealth down(Instant at, String provider, String error) {
        return new EngineHealth(at, false, false, null, provider, List.of(), false, error);
    }
}
