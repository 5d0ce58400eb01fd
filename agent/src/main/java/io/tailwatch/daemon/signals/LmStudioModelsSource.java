package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * LM Studio's native {@code GET /api/v1/models} (0.4 and later): which models have loaded instances, each
 * instance's {@code config.context_length} and {@code config.parallel} (the predictions it runs at once). LM
 * Studio counts no queue of its own; the sum of {@code parallel} over the loaded LLM instances is its batch
 * size ({@link #BATCH_SIZE} in the details), against which the proxy's requests in flight tell running from
 * waiting ({@link EngineSignalWatch}). Embedding models are left out. A loaded instance without
 * {@code parallel} leaves the batch size unknown.
 */
public final class LmStudioModelsSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.LMSTUDIO_MODELS.value();
    public static final String PATH = "/api/v1/models";
    /** The details key of the engine's batch size (requests it generates at once). */
    public static final String BATCH_SIZE = "batch_size";
    static final String SOURCE = "lmstudio_models";
    /** Loaded instances listed in the details. */
    static final int MAX_LISTED = 16;
    static final int MAX_ID_CHARS = 256;

    public LmStudioModelsSource(EngineEndpoint endpoint) {
        super(endpoint, KIND, PATH);
    }

    /** LM Studio's answer: a {@code models} list whose entries carry {@code loaded_instances}. */
    static boolean looksLikeLmStudio(JsonNode n) {
        if (n == null || !n.path("models").isArray()) {
            return false;
        }
        for (JsonNode m : n.path("models")) {
            if (m.has("loaded_instances")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        return parse(getObject(deadline));
    }

    /** Reads one answer, a JSON object. */
    static EngineSignals parse(JsonNode n) throws SignalFailure {
        JsonNode models = n.get("models");
        if (models == null) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH, "no models list");
        }
        if (!models.isArray()) {
            throw new SignalFailure(SignalFailure.MALFORMED, PATH, "models is not a list");
        }
        List<Map<String, Object>> loaded = new ArrayList<>();
        long batch = 0;
        boolean batchKnown = true;
        int instances = 0;
        for (JsonNode m : models) {
            if ("embedding".equals(m.path("type").asText(""))) {
                continue;
            }
            JsonNode li = m.path("loaded_instances");
            if (!li.isMissingNode() && !li.isArray()) {
                throw new SignalFailure(SignalFailure.MALFORMED, PATH, "loaded_instances of " + text(m.path("key"))
                        + " is not a list");
            }
            for (JsonNode inst : li) {
                instances++;
                JsonNode cfg = inst.path("config");
                Long parallel = InputRange.count(SOURCE, "parallel", cfg.path("parallel"), EngineConfig.Signals.MAX_BATCH_SIZE);
                if (parallel == null || parallel < 1) {
                    batchKnown = false;
                } else {
                    batch += parallel;
                }
                if (loaded.size() < MAX_LISTED) {
                    Map<String, Object> one = new LinkedHashMap<>();
                    one.put("model", text(m.path("key")));
                    one.put("instance", text(inst.path("id")));
                    Long ctx = InputRange.count(SOURCE, "context_length", cfg.path("context_length"), InputRange.MAX_CONTEXT);
                    if (ctx != null) {
                        one.put("context_length", ctx);
                    }
                    if (parallel != null) {
                        one.put("parallel", parallel);
                    }
                    loaded.add(one);
                }
            }
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("loaded_instances", instances);
        details.put("loaded", loaded);
        if (instances > 0 && batchKnown) {
            details.put(BATCH_SIZE, (double) batch);
        }
        return new EngineSignals(null, null, null, null, null, details);
    }

    private static String text(JsonNode v) {
        String s = v.isTextual() ? v.asText() : "";
        return s.length() <= MAX_ID_CHARS ? s : s.substring(0, MAX_ID_CHARS) + "...";
    }
}
