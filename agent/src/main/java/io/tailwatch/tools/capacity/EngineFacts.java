package io.tailwatch.tools.capacity;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.probe.LoadedModel;
import java.time.Duration;
import java.util.Map;

/**
 * What the engine says about itself and the model: version, digest, format and quantization. All
 * through the engine client's own transport; each figure is null when the engine does not tell.
 */
public record EngineFacts(String version, String provider, String modelDigest, String modelFormat,
                          String quantization) {

    public static final EngineFacts UNKNOWN = new EngineFacts(null, null, null, null, null);

    public static EngineFacts ask(EngineClient client, String model, String apiKey, Duration deadline) {
        EngineHealth h = client.health(deadline);
        String digest = null;
        if (model != null) {
            for (LoadedModel m : h.models()) {
                if (model.equals(m.name())) {
                    digest = m.digest();
                }
            }
        }
        String format = null;
        String quant = null;
        if ("ollama".equals(client.api()) && model != null) {
            HttpTransport.JsonReply show = HttpTransport.json(client.baseUri().resolve("/api/show"),
                    Map.of("model", model), apiKey, deadline, deadline);
            if (show.ok() && show.body() != null) {
                JsonNode d = show.body().path("details");
                format = d.path("format").asText(null);
                quant = d.path("quantization_level").asText(null);
            }
            if (digest == null) {
                HttpTransport.JsonReply tags = HttpTransport.json(client.baseUri().resolve("/api/tags"), null, apiKey,
                        deadline, deadline);
                if (tags.ok() && tags.body() != null) {
                    for (JsonNode m : tags.body().path("models")) {
                        if (model.equals(m.path("name").asText(null)) || model.equals(m.path("model").asText(null))) {
                            digest = m.path("digest").asText(null);
                        }
                    }
                }
            }
        }
        return new EngineFacts(h.version(), h.provider(), digest, format, quant);
    }

    /**
     * Frees the model's memory: Ollama unloads at once on a request with {@code keep_alive: 0}.
     * Other engines have no such call; returns false for them.
     */
    public static boolean unload(EngineClient client, String model, String apiKey, Duration deadline) {
        if (!"ollama".equals(client.api()) || model == null) {
            return false;
        }
        HttpTransport.JsonReply r = HttpTransport.json(client.baseUri().resolve("/api/generate"),
                Map.of("model", model, "keep_alive", 0, "stream", false), apiKey, deadline, deadline);
        return r.ok();
    }
}
