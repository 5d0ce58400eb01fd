package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.kv.ModelShape;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ollama's native API: /api/version for health, /api/ps for loaded models (size, size_vram,
 * context length, expiry), /api/show for each loaded model's architecture (cached per digest),
 * and streaming /api/chat for probes, whose last line carries the server's own timings.
 */
final class OllamaClient extends AbstractEngineClient {
    private static final Logger LOG = LoggerFactory.getLogger(OllamaClient.class);
    private static final int SHAPE_CACHE = 32;
    private static final String SHOW = "/api/show";

    /** name@digest -> shape (null value: the architecture is unknown; asked once). */
    private final Map<String, ModelShape> shapes = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, ModelShape> e) {
            return size() > SHAPE_CACHE;
        }
    });

    OllamaClient(URI base, String apiKey, Duration connectTimeout) {
        super(base, apiKey, connectTimeout);
    }

    @Override
    public EngineApi api() {
        return EngineApi.OLLAMA;
    }

    @Override
    public EngineHealth health(Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        Instant at = Instant.now();
        HttpTransport.JsonReply v = get("/api/version", deadline);
        if (EngineHealth.refusesKey(v.status())) {
            return EngineHealth.keyRefused(at, "ollama", v.status(), "/api/version", apiKey != null);
        }
        if (!v.ok()) {
            return EngineHealth.down(at, "ollama", "/api/version: " + describe(v));
        }
        String version = v.body() == null ? null : v.body().path("version").asText(null);
        HttpTransport.JsonReply ps = get("/api/ps", left(end));
        if (!ps.ok() || ps.body() == null || !ps.body().path("models").isArray()) {
            return new EngineHealth(at, true, false, version, "ollama", List.of(), false,
                    "/api/ps: " + describe(ps)); // up; inventory unknown this time
        }
        List<LoadedModel> models = new ArrayList<>();
        for (JsonNode m : ps.body().get("models")) {
            if (models.size() >= EngineHealth.MAX_MODELS) {
                break;
            }
            String name = m.path("name").asText(m.path("model").asText(null));
            if (name == null) {
                continue;
            }
            String digest = m.path("digest").asText(null);
            models.add(new LoadedModel(name, digest, longOrNull(m.get("size")), longOrNull(m.get("size_vram")),
                    longOrNull(m.get("context_length")), m.path("expires_at").asText(null), shape(name, digest, end)));
        }
        String limit = ps.limit() == null ? null : "/api/ps: " + ps.limit();
        long total = ps.total("/models");
        if (limit == null && total > EngineHealth.MAX_MODELS) {
            limit = "/api/ps: " + total + " models, over the bound of " + EngineHealth.MAX_MODELS + "; the first "
                    + EngineHealth.MAX_MODELS + " kept";
        }
        return new EngineHealth(at, true, false, version, "ollama", models, ps.complete(), null, limit, total);
    }

    private ModelShape shape(String name, String digest, long end) {
        String key = name + "@" + digest;
        if (shapes.containsKey(key)) {
            return shapes.get(key);
        }
        Duration left = left(end);
        if (left.toMillis() < 50) {
            return null; // no time left this round; ask next time
        }
        HttpTransport.JsonReply show = show(name, left);
        if (!show.ok() || show.body() == null) {
            LOG.debug("/api/show {}: {}", name, describe(show));
            return null;
        }
        ModelShape shape = null;
        try {
            shape = ModelShape.fromModelInfo(show.body().get("model_info"));
        } catch (IllegalArgumentException e) {
            LOG.debug("/api/show {}: KV shape unknown: {}", name, e.getMessage());
        }
        shapes.put(key, shape);
        return shape;
    }

    /** POST /api/show: the model's details (format, quantization) and model_info (GGUF metadata). */
    private HttpTransport.JsonReply show(String model, Duration deadline) {
        return post(SHOW, Map.of("model", model), deadline);
    }

    @Override
    public ModelShape modelShape(String model, Duration deadline) throws EngineQueryException {
        HttpTransport.JsonReply r = show(model, deadline);
        String what = "POST " + uri(SHOW);
        if (r.error() != null) {
            throw new EngineQueryException(what + ": " + r.error(), false);
        }
        if (r.status() / 100 != 2) {
            String msg = r.body() != null && r.body().hasNonNull("error") ? HttpTransport.clip(r.body().get("error").asText())
                    : HttpTransport.clip(r.rawBody());
            throw new EngineQueryException(what + ": HTTP " + r.status() + (msg == null || msg.isEmpty() ? "" : ": " + msg),
                    false);
        }
        if (r.body() == null || !r.body().has("model_info")) {
            throw new EngineQueryException(what + ": the answer has no model_info (is this Ollama?)", false);
        }
        try {
            return ModelShape.fromModelInfo(r.body().get("model_info"));
        } catch (IllegalArgumentException e) {
            throw new EngineQueryException(what + ": cannot size the KV cache of " + model + ": " + e.getMessage(), false);
        }
    }

    /** Format and quantization from /api/show's details; the digest from /api/tags (the installed models). */
    @Override
    public ModelFacts modelFacts(String model, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        String format = null;
        String quant = null;
        HttpTransport.JsonReply show = show(model, deadline);
        if (show.ok() && show.body() != null) {
            JsonNode d = show.body().path("details");
            format = d.path("format").asText(null);
            quant = d.path("quantization_level").asText(null);
        }
        String digest = null;
        HttpTransport.JsonReply tags = get("/api/tags", left(end));
        if (tags.ok() && tags.body() != null) {
            for (JsonNode m : tags.body().path("models")) {
                if (model.equals(m.path("name").asText(null)) || model.equals(m.path("model").asText(null))) {
                    digest = m.path("digest").asText(null);
                }
            }
        }
        return new ModelFacts(digest, format, quant);
    }

    /** Ollama unloads a model at once on a request with {@code keep_alive: 0}. */
    @Override
    public boolean unload(String model, Duration deadline) {
        return model != null && post("/api/generate", Map.of("model", model, "keep_alive", 0, "stream", false), deadline).ok();
    }

    @Override
    public String defaultModel(Duration deadline) {
        HttpTransport.JsonReply ps = get("/api/ps", deadline);
        if (!ps.ok() || ps.body() == null) {
            return null;
        }
        for (JsonNode m : ps.body().path("models")) {
            String name = m.path("name").asText(m.path("model").asText(null));
            if (name != null) {
                return name;
            }
        }
        return null;
    }

    @Override
    protected HttpTransport.Request streamRequest(ProbeRequest r, String model, String prompt) {
        ObjectNode body = chatBody(model, prompt);
        ObjectNode options = body.putObject("options");
        options.put("temperature", r.temperature());
        options.put("num_predict", r.maxTokens());
        return streamRequest("/api/chat", body, r, "application/x-ndjson");
    }

    @Override
    protected StreamParser parser() {
        return new OllamaStreamParser();
    }
}
