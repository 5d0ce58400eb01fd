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
 * /api/v0/models loaded state, and streaming /v1/chat/completions with include_usage for probes. The API
 * tells no model architecture, weights' digest or quantization, and has no unload request: those
 * operations keep {@link EngineClient}'s defaults.
 */
final class OpenAiClient extends AbstractEngineClient {
    /** Endpoints answered 404 once are not asked again: most servers lack one or the other. */
    private volatile boolean noHealth;
    private volatile boolean noLmStudio;

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
            } else if (h.ok() && h.body() != null) {
                String status = h.body().path("status").asText("");
                if (status.equals("healthy") || h.body().has("loaded_model")) {
                    provider = "mlx_vlm";
                }
            } else if (h.status() >= 500) {
                return EngineHealth.down(at, "openai", "/health: " + describe(h));
            }
        }
        HttpTransport.JsonReply models = get("/v1/models", left(end));
        if (models.status() == 0) {
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
        return new EngineHealth(at, true, false, null, provider, served, complete, null, limit, total);
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

    @Override
    public String defaultModel(Duration deadline) {
        EngineHealth h = health(deadline);
        return h.models().isEmpty() ? null : h.models().get(0).name();
    }

    @Override
    protected HttpTransport.Request streamRequest(ProbeRequest r, String model, String prompt) {
        ObjectNode body = chatBody(model, prompt);
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
