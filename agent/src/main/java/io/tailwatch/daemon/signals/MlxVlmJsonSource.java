package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * mlx-vlm's {@code GET /metrics}, which answers JSON rather than Prometheus text: {@code in_flight}
 * (requests accepted and not finished; reported as running, since the server does not split
 * running from waiting), the request counters and {@code last_error} (to the details). Fields are
 * looked up at the top level and one object level down.
 */
public final class MlxVlmJsonSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.MLX_VLM_JSON.value();
    public static final String PATH = "/metrics";
    static final List<String> COUNTERS = List.of("requests_started", "requests_completed", "requests_failed",
            "avg_decode_tok_s");
    static final int MAX_ERROR_CHARS = 300;

    public MlxVlmJsonSource(EngineEndpoint endpoint) {
        super(endpoint, KIND, PATH);
    }

    @Override
    public String describe() {
        return "GET " + PATH + " (JSON)";
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        return parse(endpoint.getJson(PATH, deadline));
    }

    static boolean looksLikeMlxVlm(JsonNode n) {
        return n != null && n.isObject() && field(n, "in_flight") != null;
    }

    static EngineSignals parse(JsonNode n) throws SignalFailure {
        if (!n.isObject()) {
            throw new SignalFailure(SignalFailure.MALFORMED, PATH, "expected a JSON object");
        }
        JsonNode inFlight = field(n, "in_flight");
        if (inFlight == null) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH, "no in_flight field");
        }
        if (!inFlight.isNumber()) {
            throw new SignalFailure(SignalFailure.MALFORMED, PATH, "in_flight is not a number: " + inFlight);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("in_flight", inFlight.asDouble());
        for (String c : COUNTERS) {
            JsonNode v = field(n, c);
            if (v != null && v.isNumber()) {
                details.put(c, v.asDouble());
            }
        }
        JsonNode err = field(n, "last_error");
        if (err != null && !err.isNull()) {
            String text = err.isTextual() ? err.asText() : err.toString();
            details.put("last_error", text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "...");
        }
        return new EngineSignals(inFlight.asDouble(), null, null, null, null, details);
    }

    /** {@code name} at the top level, else in the first object child that has it. */
    static JsonNode field(JsonNode n, String name) {
        JsonNode v = n.get(name);
        if (v != null) {
            return v;
        }
        for (Iterator<JsonNode> it = n.elements(); it.hasNext(); ) {
            JsonNode child = it.next();
            if (child.isObject() && child.has(name)) {
                return child.get(name);
            }
        }
        return null;
    }
}
