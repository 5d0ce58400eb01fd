package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * vllm-mlx's {@code GET /v1/status}, served with or without {@code --enable-metrics} (behind its API key when
 * it has one): {@code num_running} and {@code num_waiting} of its scheduler while {@code status} is
 * {@code running}, and for the details the Metal memory, the cache figures, the generation rate and the age of
 * the oldest waiting request ({@code requests[].elapsed_s} where {@code status} is {@code waiting}). A server
 * with no model loaded ({@code not_loaded}), or one managing several models ({@code model_manager}), gives no
 * counts: unknown, not 0.
 */
public final class VllmMlxStatusSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.VLLM_MLX_STATUS.value();
    public static final String PATH = "/v1/status";

    public VllmMlxStatusSource(EngineEndpoint endpoint) {
        super(endpoint, KIND, PATH);
    }

    /** A /v1/status answer of vllm-mlx: a {@code status} text and its {@code residency} or {@code model_manager} part. */
    static boolean looksLikeVllmMlx(JsonNode n) {
        return n != null && n.isObject() && n.path("status").isTextual() && (n.has("residency") || n.path("model_manager").isObject());
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        return parse(getObject(deadline));
    }

    /** Reads one answer, a JSON object. */
    static EngineSignals parse(JsonNode n) throws SignalFailure {
        JsonNode status = n.get("status");
        if (status == null || !status.isTextual()) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH, "no status field");
        }
        Map<String, Object> details = new LinkedHashMap<>();
        VllmMlxFigures.details(n, details);
        if (!"running".equals(status.asText()) || n.has("model_manager")) {
            return new EngineSignals(null, null, null, null, null, details);
        }
        Double running = counted(n, "num_running");
        Double waiting = counted(n, "num_waiting");
        return new EngineSignals(running, waiting, null, null, null, details);
    }

    /** A count field: absent is unknown; present but not a whole number in range is malformed or dropped. */
    private static Double counted(JsonNode n, String field) throws SignalFailure {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isNumber()) {
            throw new SignalFailure(SignalFailure.MALFORMED, PATH, field + " is not a number: " + EngineEndpoint.clip(v.toString()).trim());
        }
        Long c = InputRange.count(VllmMlxFigures.SOURCE, field, v, (long) InputRange.MAX_REQUESTS);
        return c == null ? null : c.doubleValue();
    }
}
