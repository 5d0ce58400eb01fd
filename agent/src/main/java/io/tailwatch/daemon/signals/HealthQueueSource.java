package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.Map;

/**
 * A server (often a wrapper in front of an engine) whose health endpoint reports its queue, e.g.
 * {@code GET /healthz -> {"status": "ok", "queue_size": 3}}. The configured field is a dotted path
 * of JSON keys and list indexes ({@code queue_size}, {@code scheduler.queue.0}); its number is the
 * waiting figure. A 503 whose JSON body still has the field counts (busy servers say so that way).
 */
public final class HealthQueueSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.HEALTH_QUEUE.value();
    public static final java.util.List<String> PATHS = java.util.List.of("/healthz", "/health");

    private final String field;

    public HealthQueueSource(EngineEndpoint endpoint, String path, String field) {
        super(endpoint, KIND, path);
        this.field = field;
    }

    @Override
    public String describe() {
        return "GET " + path + " field " + field;
    }

    public String path() {
        return path;
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        HttpTransport.JsonReply r = endpoint.answerJson(path, deadline);
        if (r.status() / 100 != 2 && r.status() != 503) {
            throw new SignalFailure(ProbeErrors.http(r.status()), path, "HTTP " + r.status() + EngineEndpoint.clip(r.rawBody()));
        }
        JsonNode n = tree(r, path);
        return new EngineSignals(null, value(n, field, path), null, null, null, Map.of("health_path", path,
                "health_status", r.status()));
    }

    /**
     * The JSON of a 2xx or 503 health answer (read bounded); a 503 without JSON is that status, a 2xx
     * one malformed (or over a bound, as its reply says).
     */
    static JsonNode tree(HttpTransport.JsonReply r, String path) throws SignalFailure {
        JsonNode n = r.body();
        if (n != null && !n.isMissingNode() && (r.status() == 503 || r.error() == null)) {
            return n;
        }
        if (r.status() == 503) {
            throw new SignalFailure(ProbeErrors.http(503), path, "HTTP 503" + EngineEndpoint.clip(r.rawBody()));
        }
        if (r.error() != null) {
            throw new SignalFailure(r.errorType(), path, r.error());
        }
        throw new SignalFailure(SignalFailure.MALFORMED, path, "empty body");
    }

    /** The number at {@code dotted} in {@code root}. */
    static double value(JsonNode root, String dotted, String path) throws SignalFailure {
        JsonNode v = at(root, dotted);
        if (v == null || v.isNull()) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, path, "no field " + dotted);
        }
        if (v.isNumber()) {
            return v.asDouble();
        }
        if (v.isTextual()) {
            try {
                return Double.parseDouble(v.asText().trim());
            } catch (NumberFormatException e) {
                // fall through
            }
        }
        throw new SignalFailure(SignalFailure.MALFORMED, path, "field " + dotted + " is not a number: "
                + EngineEndpoint.clip(v.toString()).trim());
    }

    /** Walks a dotted path; a numeric segment indexes a list. Null when any step is missing. */
    static JsonNode at(JsonNode root, String dotted) {
        JsonNode n = root;
        for (String seg : dotted.split("\\.")) {
            if (n == null) {
                return null;
            }
            if (n.isArray() && seg.length() <= 9 && seg.chars().allMatch(Character::isDigit)) {
                n = n.get(Integer.parseInt(seg));
            } else if (n.isObject()) {
                n = n.get(seg);
            } else {
                return null;
            }
        }
        return n;
    }
}
