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
 * @param keyRefusedStatus 401 or 403 when the engine refused the agent's request for want of a (valid) API
 *                         key: it answers, so it is not down, but its health is unknown ({@code up} false)
 */
public record EngineHealth(Instant checkedAt, boolean up, boolean loading, String version, String provider,
                           List<LoadedModel> models, boolean inventoryKnown, String error, String limit,
                           long modelsTotal, Integer keyRefusedStatus) {
    /** Models kept per check: every one becomes a few series, so the inventory is bounded. */
    public static final int MAX_MODELS = 64;

    public EngineHealth {
        modelsTotal = Math.max(modelsTotal, models == null ? 0 : models.size());
        models = models == null ? List.of() : List.copyOf(models.size() > MAX_MODELS ? models.subList(0, MAX_MODELS)
                : models);
    }

    public EngineHealth(Instant checkedAt, boolean up, boolean loading, String version, String provider,
                        List<LoadedModel> models, boolean inventoryKnown, String error) {
        this(checkedAt, up, loading, version, provider, models, inventoryKnown, error, null, -1, null);
    }

    public EngineHealth(Instant checkedAt, boolean up, boolean loading, String version, String provider,
                        List<LoadedModel> models, boolean inventoryKnown, String error, String limit, long modelsTotal) {
        this(checkedAt, up, loading, version, provider, models, inventoryKnown, error, limit, modelsTotal, null);
    }

    /** True when the engine answered HTTP 401 or 403: it needs an API key (or another one). */
    public boolean needsKey() {
        return keyRefusedStatus != null;
    }

    /** Whether an HTTP status is a refusal for want of a (valid) key. */
    public static boolean refusesKey(int status) {
        return status == 401 || status == 403;
    }

    /** The sentence every surface uses for an engine that refuses the agent's key (or its lack of one). */
    public static String keyMessage(int status, String endpoint, boolean keySent) {
        return endpoint + ": HTTP " + status + ": the engine needs an API key"
                + (keySent ? " and refused the one configured" : " and none is configured")
                + " (api_key: on the engine in the config, --api-key-env VAR on the command line)";
    }

    /** An engine that refused the request on {@code endpoint} with {@code status} 401 or 403. */
    public static EngineHealth keyRefused(Instant at, String provider, int status, String endpoint, boolean keySent) {
        return new EngineHealth(at, false, false, null, provider, List.of(), false,
                keyMessage(status, endpoint, keySent), null, -1, status);
    }

    public static EngineHealth down(Instant at, String provider, String error) {
        return new EngineHealth(at, false, false, null, provider, List.of(), false, error);
    }
}
