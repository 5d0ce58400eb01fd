package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.http.HttpTransport;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * OpenAI-compatible servers (mlx_lm.server, mlx_vlm, LM Studio, llama.cpp, vLLM): /health where the
 * server has one (503 while loading is "loading", not down), /v1/models, LM Studio's
 * /api/v0/models loaded state, and streaming /v1/chat/completions with include_usage for probes; LM Studio 0.4
 * and later is probed through its native /api/v1/chat instead, whose answer carries the engine's own stats. The
 * engine's own requests tell the rest where it has them: llama.cpp's /props (build, GGUF file, slots),
 * vLLM's /version, LM Studio's /api/v0/models (format, quantization). The API tells no model architecture
 * and has no unload request: those operations keep {@link EngineClient}'s defaults.
 */
final class OpenAiClient extends AbstractEngineClient {
    /** Endpoints answered 404 once are not asked again: most servers lack one or the other. */
    private volatile boolean noHealth;
    private volatile boolean noLmStudio;
    /** LM Studio's native REST API (0.4 and later): null until known, then whether probes use its /api/v1/chat. */
    private volatile Boolean lmStudioNative;
    static final String LM_STUDIO_MODELS = "/api/v1/models";
    static final String LM_STUDIO_CHAT = "/api/v1/chat";
    /** The version the engine reported (llama.cpp build, vLLM version), read once while it stays up. */
    private volatile String version;
    /** mlx_lm's version from an answer's system_fingerprint (it has no version endpoint); null before one. */
    private volatile String fingerprintVersion;
    /**
     * mlx_lm: the last model-list answer and when it was read. Its /v1/models scans the Hugging Face cache at
     * every call (130-175 ms of the server's CPU with 200 repositories), so liveness is /health and the list
     * is read every {@link #MLX_MODEL_LIST_EVERY} at most.
     */
    private volatile EngineHealth lastMlxList;
    private volatile long lastMlxListAt;
    static final Duration MLX_MODEL_LIST_EVERY = Duration.ofSeconds(60);

    OpenAiClient(URI base, String apiKey, Duration connectTimeout) {
        super(base, apiKey, connectTimeout);
    }

    @Override
    public EngineApi api() {
        return EngineApi.OPENAI;
    }

    @Override
    public EngineHealth health(Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        Instant at = Instant.now();
        boolean loading = false;
        boolean healthOk = false;
        String provider = null;
        if (!noHealth) {
            HttpTransport.JsonReply h = get("/health", deadline);
            if (h.error() != null && h.status() == 0) {
                return EngineHealth.down(at, "openai", "/health: " + describe(h));
            }
            if (EngineHealth.refusesKey(h.status())) {
                return EngineHealth.keyRefused(at, "openai", h.status(), "/health", apiKey != null);
            }
            if (h.status() == 404) {
                noHealth = true;
            } else if (h.status() == 503) {
                loading = true; // llama.cpp answers 503 "Loading model" until the weights are in
            } else if (h.ok()) {
                healthOk = true;
                String status = h.body() == null ? "" : h.body().path("status").asText("");
                if (h.body() != null && h.body().path("engine_type").isTextual() && h.body().path("model_loaded").isBoolean()) {
                    provider = "vllm_mlx"; // vllm-mlx's /health: "healthy" too, with its engine type and loaded state
                } else if (status.equals("healthy") || h.body() != null && h.body().has("loaded_model")) {
                    provider = "mlx_vlm";
                }
            } else if (h.status() >= 500) {
                return EngineHealth.down(at, "openai", "/health: " + describe(h));
            }
        }
        EngineHealth cached = lastMlxList;
        if (healthOk && provider == null && cached != null
                && System.nanoTime() - lastMlxListAt < MLX_MODEL_LIST_EVERY.toNanos()) {
            return new EngineHealth(at, true, false, fingerprintVersion, cached.provider(), cached.models(),
                    cached.inventoryKnown(), null, cached.limit(), cached.modelsTotal());
        }
        HttpTransport.JsonReply models = get("/v1/models", left(end));
        if (models.status() == 0) {
            version = null; // a restart may bring another build
            lmStudioNative = null;
            return EngineHealth.down(at, "openai", "/v1/models: " + describe(models));
        }
        if (EngineHealth.refusesKey(models.status())) {
            return EngineHealth.keyRefused(at, provider == null ? "openai" : provider, models.status(), "/v1/models",
                    apiKey != null);
        }
        if (loading) {
            return new EngineHealth(at, true, true, null, provider == null ? "llama_cpp" : provider, List.of(), false,
                    null);
        }
        if (!models.ok() || models.body() == null || !models.body().path("data").isArray()) {
            if (healthOk) {
                // Its health answers: it is up. mlx_lm without a hub directory answers /v1/models with an empty
                // body; the models are unknown (not none), and a probe names none.
                return remember(new EngineHealth(at, true, false, versionOf(provider, end),
                        provider == null ? "mlx_lm" : provider, List.of(), false, null));
            }
            return EngineHealth.down(at, "openai", "/v1/models: " + describe(models));
        }
        List<LoadedModel> served = new ArrayList<>();
        boolean sawOwner = false;
        for (JsonNode m : models.body().get("data")) {
            String id = m.path("id").asText(null);
            if (id == null) {
                continue;
            }
            String owner = m.path("owned_by").asText("");
            if (!owner.isEmpty()) {
                sawOwner = true;
            }
            if (provider == null && owner.equals("llamacpp")) {
                provider = "llama_cpp";
            } else if (provider == null && owner.equals("vllm")) {
                provider = "vllm";
            }
            Long ctx = longOrNull(m.get("max_model_len"));
            if (served.size() < EngineHealth.MAX_MODELS) {
                served.add(new LoadedModel(id, null, null, null, ctx, null, null));
            }
        }
        String limit = models.limit() == null ? null : "/v1/models: " + models.limit();
        long total = models.total("/data");
        boolean complete = models.complete();
        HttpTransport.JsonReply lm = lmStudioReply(end);
        if (lm != null) {
            provider = "lm_studio";
            nativeChat(end);
            served = lmStudioLoaded(lm);
            total = served.size();
            limit = lm.limit() == null ? null : "/api/v0/models: " + lm.limit();
            complete = lm.complete();
        }
        if (provider == null) {
            provider = !noHealth && !sawOwner ? "mlx_lm" : "openai";
        }
        if (limit == null && total > EngineHealth.MAX_MODELS) {
            limit = total + " models, over the bound of " + EngineHealth.MAX_MODELS + "; the first "
                    + EngineHealth.MAX_MODELS + " kept";
        }
        return remember(new EngineHealth(at, true, false, versionOf(provider, end), provider, served, complete, null,
                limit, total));
    }

    /** Keeps mlx_lm's model list for {@link #MLX_MODEL_LIST_EVERY}. */
    private EngineHealth remember(EngineHealth h) {
        if ("mlx_lm".equals(h.provider())) {
            lastMlxList = h;
            lastMlxListAt = System.nanoTime();
        } else {
            lastMlxList = null;
        }
        return h;
    }

    private String versionOf(String provider, long end) {
        return "mlx_lm".equals(provider) ? fingerprintVersion : version(provider, end);
    }

    @Override
    protected void measured(Measurement m) {
        String fp;
        synchronized (m) {
            fp = m.fingerprint;
        }
        String v = MlxFingerprint.version(fp);
        if (v != null) {
            fingerprintVersion = v;
        }
    }

    /** The engine's version as it reports it: llama.cpp's /props build_info, vLLM's /version; null elsewhere. */
    private String version(String provider, long end) {
        String v = version;
        if (v != null) {
            return v;
        }
        if ("llama_cpp".equals(provider)) {
            HttpTransport.JsonReply p = get("/props", left(end));
            v = p.ok() && p.body() != null ? text(p.body().get("build_info")) : null;
        } else if ("vllm".equals(provider)) {
            HttpTransport.JsonReply p = get("/version", left(end));
            v = p.ok() && p.body() != null ? text(p.body().get("version")) : null;
        }
        version = v;
        return v;
    }

    /** llama.cpp's /props when the server is llama.cpp (it has default_generation_settings), else null. */
    private JsonNode llamaProps(Duration deadline) {
        HttpTransport.JsonReply p = get("/props", deadline);
        return p.ok() && p.body() != null && p.body().has("default_generation_settings") ? p.body() : null;
    }

    /**
     * llama.cpp: the weights are the GGUF file of /props model_path, its quantization the file type in
     * the file's name (Q4_K_M, IQ3_XXS, Q8_0, F16, BF16, F32) when it has one. LM Studio: compatibility_type
     * and quantization of the model's /api/v0/models entry.
     */
    @Override
    public ModelFacts modelFacts(String model, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        JsonNode props = llamaProps(deadline);
        if (props != null) {
            String path = text(props.get("model_path"));
            String file = ModelNames.display(path);
            String format = file != null && file.toLowerCase(java.util.Locale.ROOT).endsWith(".gguf") ? "gguf" : null;
            return new ModelFacts(null, format, file == null ? null : fileType(file));
        }
        HttpTransport.JsonReply lm = lmStudioReply(end);
        if (lm != null) {
            for (JsonNode m : lm.body().get("data")) {
                if (model.equals(m.path("id").asText(null))) {
                    return new ModelFacts(null, text(m.get("compatibility_type")), text(m.get("quantization")));
                }
            }
        }
        return ModelFacts.UNKNOWN;
    }

    private static final java.util.regex.Pattern FILE_TYPE = java.util.regex.Pattern.compile(
            "(?i)(?<![A-Za-z0-9])(I?Q[0-9](?:_[A-Z0-9]+)*|BF16|F16|F32)(?![A-Za-z0-9])");

    /** The GGUF file type named in a file name (llama.cpp's convention), upper-case; null when it names none. */
    static String fileType(String fileName) {
        java.util.regex.Matcher m = FILE_TYPE.matcher(fileName.replaceFirst("(?i)\\.gguf$", ""));
        String last = null;
        while (m.find()) {
            last = m.group(1).toUpperCase(java.util.Locale.ROOT);
        }
        return last;
    }

    /** llama.cpp: /props total_slots (the server's --parallel). */
    @Override
    public Parallelism parallelism(Duration deadline) {
        JsonNode props = llamaProps(deadline);
        JsonNode slots = props == null ? null : props.get("total_slots");
        if (slots != null && slots.isIntegralNumber() && slots.asLong() > 0 && slots.asLong() <= 1_000_000) {
            return new Parallelism(slots.asInt(), "llama.cpp /props total_slots");
        }
        return null;
    }

    /** A llama.cpp server's /props and /v1/models; another OpenAI-compatible server has no /props and fails naming it. */
    @Override
    public io.tailwatch.core.kv.EngineReport servingReport(Duration deadline) throws EngineQueryException {
        try {
            return LlamaCppServerInfo.read(base, apiKey, connectTimeout, deadline).report();
        } catch (LlamaCppServerInfo.Failure e) {
            throw new EngineQueryException(e.getMessage(), false);
        }
    }

    private static String text(JsonNode n) {
        return n != null && n.isTextual() && !n.asText().isBlank() && n.asText().length() <= 200 ? n.asText() : null;
    }

    /**
     * LM Studio 0.4 and later (its native /api/v1/models answers a models list): probes go to its native
     * /api/v1/chat, whose answers carry the engine's own stats. Asked once; an older LM Studio (404) keeps the
     * OpenAI-compatible route; another answer leaves it unknown, asked again at the next health check.
     */
    private void nativeChat(long end) {
        if (lmStudioNative != null) {
            return;
        }
        HttpTransport.JsonReply r = get(LM_STUDIO_MODELS, left(end));
        if (r.ok() && r.body() != null && r.body().path("models").isArray()) {
            lmStudioNative = true;
        } else if (r.status() == 404 || r.status() == 405) {
            lmStudioNative = false;
        }
    }

    /** LM Studio's model list, or null when the server is not LM Studio. */
    private HttpTransport.JsonReply lmStudioReply(long end) {
        if (noLmStudio) {
            return null;
        }
        HttpTransport.JsonReply r = get("/api/v0/models", left(end));
        if (!r.ok() || r.body() == null || !r.body().path("data").isArray()) {
            if (r.status() / 100 == 4) {
                noLmStudio = true;
            }
            return null;
        }
        return r;
    }

    /** LM Studio's loaded models (at most {@link EngineHealth#MAX_MODELS}). */
    private static List<LoadedModel> lmStudioLoaded(HttpTransport.JsonReply r) {
        List<LoadedModel> out = new ArrayList<>();
        for (JsonNode m : r.body().get("data")) {
            if (out.size() >= EngineHealth.MAX_MODELS) {
                break;
            }
            if ("loaded".equals(m.path("state").asText()) && m.hasNonNull("id")) {
                Long ctx = longOrNull(m.has("loaded_context_length") ? m.get("loaded_context_length")
                        : m.get("max_context_length"));
                out.add(new LoadedModel(m.get("id").asText(), null, null, null, ctx, null, null));
            }
        }
        return out;
    }

    /**
     * The first listed model; but for mlx_lm (whose list names its whole Hugging Face cache first, and which
     * loads any model a request names) and for a server whose list cannot be read, {@link #UNNAMED_MODEL}: the
     * probe names none and is served by the model the server serves.
     */
    @Override
    public String defaultModel(Duration deadline) {
        EngineHealth h = health(deadline);
        if (h.up() && ("mlx_lm".equals(h.provider()) || !h.inventoryKnown())) {
            return UNNAMED_MODEL;
        }
        return h.models().isEmpty() ? null : h.models().get(0).name();
    }

    @Override
    protected HttpTransport.Request streamRequest(ProbeRequest r, String model, String prompt) {
        if (Boolean.TRUE.equals(lmStudioNative) && !UNNAMED_MODEL.equals(model)) {
            // LM Studio's native chat: the same generation, answered with the engine's stats (LmStudioChatEvents).
            // store: false, or every probe would be kept as a chat the engine stores.
            ObjectNode body = HttpTransport.JSON.createObjectNode();
            body.put("model", model);
            body.put("input", prompt);
            body.put("stream", true);
            body.put("store", false);
            body.put("max_output_tokens", r.maxTokens());
            body.put("temperature", r.temperature());
            return streamRequest(LM_STUDIO_CHAT, body, r, "text/event-stream");
        }
        ObjectNode body = chatBody(model, prompt);
        if (UNNAMED_MODEL.equals(model)) {
            body.remove("model");
        }
        // mlx_lm.server reads include_usage directly: always send the key.
        body.putObject("stream_options").put("include_usage", true);
        body.put("max_tokens", r.maxTokens());
        body.put("temperature", r.temperature());
        return streamRequest("/v1/chat/completions", body, r, "text/event-stream");
    }

    @Override
    protected StreamParser parser() {
        return new OpenAiStreamParser();
    }
}
