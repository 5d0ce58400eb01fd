package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import io.tailwatch.metrics.AttrValues.EngineApi;
import io.tailwatch.metrics.AttrValues.ModelMemoryKind;
import java.util.List;

/** Engine health, inventory and KV-cache arithmetic. */
public final class EngineMetrics {
    private EngineMetrics() {
    }

    static final AttributeDef ENGINE = free(AttrKeys.ENGINE, "Configured engine name");
    static final AttributeDef MODEL = free(AttrKeys.MODEL, "Model name as the engine lists it (the name a request asks for)");

    public static final MetricDef UP = MetricDef.gauge("tailwatch.engine.up", "{bool}",
            "1 when the engine's health check passed (or it reports loading), 0 when it failed.", ENGINE);

    public static final MetricDef REACHED = MetricDef.gauge("tailwatch.engine.reached", "{bool}",
            "1 once the engine has answered a health check since the agent started; 0 while it never has (a configured engine that is not running: reported, not paged as EngineDown).",
            ENGINE);

    public static final MetricDef KEY_REFUSED = MetricDef.gauge("tailwatch.engine.key_refused", "{bool}",
            "1 while the engine refuses the agent's requests with HTTP 401 or 403: it needs an API key, or another one (it answers, so it is not down; tailwatch.engine.up is left out, its health unknown).",
            ENGINE);

    public static final MetricDef LOADING = MetricDef.gauge("tailwatch.engine.loading", "{bool}",
            "1 while the engine reports that it is loading a model (e.g. llama.cpp 503 'Loading model'), or, for mlx_lm.server (whose /health says ok while it loads), from a probe that timed out before its first answer since it came up until that answer.", ENGINE);

    public static final MetricDef INFO = MetricDef.gauge("tailwatch.engine.info", "{info}",
            "Always 1; carries the engine's API flavour, detected server kind and version.", ENGINE,
            oneOf(AttrKeys.ENGINE_API, "Wire API", EngineApi.class), free(AttrKeys.ENGINE_VERSION, "Version the engine reports, or unknown"));

    public static final MetricDef MODELS_LOADED = MetricDef.gauge("tailwatch.engine.models.loaded", "{model}",
            "Models the engine reports as loaded (Ollama /api/ps, LM Studio's loaded state; a server of one model: its list).", ENGINE);

    public static final MetricDef MODELS_LISTED = MetricDef.gauge("tailwatch.engine.models.listed", "{model}",
            "Models the engine's model list names without telling which it holds (mlx_lm.server: every mlx model of its Hugging Face cache, then the served one); tailwatch.engine.models.loaded is absent for it.", ENGINE);

    public static final MetricDef MODEL_MEMORY = MetricDef.upDownCounter("tailwatch.model.memory.usage", "By",
            "Memory a loaded model occupies, as the engine reports it (Ollama size and size_vram).", ENGINE, MODEL,
            oneOf(AttrKeys.MODEL_MEMORY_KIND, "total: whole model; vram: part in GPU memory", ModelMemoryKind.class));

    public static final MetricDef MODEL_CONTEXT = MetricDef.gauge("tailwatch.model.context.length", "{token}",
            "Context length the loaded model runs with.", ENGINE, MODEL);

    public static final MetricDef MODEL_UNLOAD_TIME = MetricDef.gauge("tailwatch.model.unload.time", "s",
            "When the engine will unload the model unless it is used again, as Unix time (Ollama /api/ps expires_at, which each request moves on by its keep_alive).",
            ENGINE, MODEL);

    public static final MetricDef KV_BYTES_PER_TOKEN = MetricDef.gauge("tailwatch.model.kv_cache.token.size", "By",
            "KV-cache bytes per token: sum over layers of (key_length + value_length) x KV heads x bytes per element.",
            ENGINE, MODEL);

    public static final MetricDef KV_CONTEXT_BYTES = MetricDef.gauge("tailwatch.model.kv_cache.context", "By",
            "KV-cache bytes the model's current context length needs.", ENGINE, MODEL);

    public static final MetricDef KV_HEADROOM = MetricDef.gauge("tailwatch.model.kv_cache.headroom_tokens", "{token}",
            "How many more tokens of KV cache fit before the model meets a ceiling: the tighter of the host's available memory (beyond it the host swaps) and, on a Mac, what the GPU working-set limit leaves after the model's footprint and its context's KV.", ENGINE, MODEL);

    public static final MetricDef GPU_MEMORY_SHARE = MetricDef.gauge("tailwatch.model.gpu_memory.share", "1",
            "macOS: the model's footprint plus its current context's KV cache over the GPU working-set limit (hw.gpu.memory.limit). Footprint: the engine's own figure (Ollama size, which holds its context's KV already, so none is added) or else the engine processes' physical footprint. Absent without a limit.", ENGINE, MODEL);

    public static final List<MetricDef> ALL = List.of(UP, REACHED, KEY_REFUSED, LOADING, INFO, MODELS_LOADED, MODELS_LISTED, MODEL_MEMORY, MODEL_CONTEXT, MODEL_UNLOAD_TIME,
            KV_BYTES_PER_TOKEN, KV_CONTEXT_BYTES, KV_HEADROOM, GPU_MEMORY_SHARE);
}
