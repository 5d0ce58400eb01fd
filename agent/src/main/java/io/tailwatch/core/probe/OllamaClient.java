package io.tailwatch.core.probe;

import io.tailwatch.core.http.HttpTransport;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
    public String api() {
        return "ollama";
    }

    @Override
    public EngineHealth health(Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        Instant at = Instant.now();
        HttpTransport.JsonReply v = get("/api/version", deadline);
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
        HttpTransport.JsonReply show = post("/api/show", Map.of("model", name), left);
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
