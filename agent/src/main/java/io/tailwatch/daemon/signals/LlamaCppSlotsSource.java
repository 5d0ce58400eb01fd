package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * llama.cpp server's {@code GET /slots}: one object per parallel slot. A slot is busy when
 * {@code is_processing} is true (older builds: {@code state} other than 0); the busy count is the
 * running figure. Per-slot context size and tokens decoded go to the details. The endpoint says
 * nothing about requests waiting for a slot (that is {@code llamacpp:requests_deferred} on /metrics).
 */
public final class LlamaCppSlotsSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.LLAMACPP_SLOTS.value();
    public static final String PATH = "/slots";
    /** Bound on the slots listed in the details. */
    static final int MAX_SLOTS_LISTED = 64;

    public LlamaCppSlotsSource(EngineEndpoint endpoint) {
        super(endpoint, KIND, PATH);
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        return parse(endpoint.getJson(PATH, deadline));
    }

    /** True when {@code n} has the shape of a /slots answer (a list of slot objects). */
    static boolean looksLikeSlots(JsonNode n) {
        if (n == null || !n.isArray() || n.isEmpty() || !n.get(0).isObject()) {
            return false;
        }
        JsonNode first = n.get(0);
        return first.has("is_processing") || (first.has("id") && first.has("n_ctx"));
    }

    static EngineSignals parse(JsonNode n) throws SignalFailure {
        if (n == null || !n.isArray()) {
            throw new SignalFailure(SignalFailure.MALFORMED, PATH, "expected a JSON list of slots, got "
                    + (n == null ? "nothing" : n.getNodeType().name().toLowerCase()));
        }
        if (n.isEmpty()) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH, "the list of slots is empty");
        }
        int busy = 0;
        List<Map<String, Object>> listed = new ArrayList<>();
        for (int i = 0; i < n.size(); i++) {
            JsonNode s = n.get(i);
            if (!s.isObject()) {
                throw new SignalFailure(SignalFailure.MALFORMED, PATH, "slot " + i + " is not an object");
            }
            Boolean processing = processing(s);
            if (processing == null) {
                throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH,
                        "slot " + i + " has neither is_processing nor state");
            }
            if (processing) {
                busy++;
            }
            if (listed.size() < MAX_SLOTS_LISTED) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("id", s.path("id").isNumber() ? s.get("id").asLong() : (long) i);
                x.put("processing", processing);
                x.put("n_ctx", longOrNull(s.get("n_ctx")));
                x.put("n_decoded", decoded(s));
                x.put("n_prompt_tokens", longOrNull(s.get("n_prompt_tokens")));
                listed.add(x);
            }
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("slots_total", n.size());
        details.put("slots_processing", busy);
        details.put("slots", listed);
        return new EngineSignals((double) busy, null, null, null, null, details);
    }

    private static Boolean processing(JsonNode s) {
        JsonNode p = s.get("is_processing");
        if (p != null && p.isBoolean()) {
            return p.asBoolean();
        }
        JsonNode st = s.get("state");
        if (st != null && st.isNumber()) {
            return st.asInt() != 0; // 0 = idle in every build that used the field
        }
        return null;
    }

    /** Tokens decoded so far: next_token is an object in older builds and a list of them in newer ones. */
    private static Long decoded(JsonNode s) {
        JsonNode nt = s.get("next_token");
        if (nt == null) {
            return null;
        }
        if (nt.isArray()) {
            long sum = 0;
            boolean any = false;
            for (JsonNode x : nt) {
                Long d = InputRange.count("llamacpp_slots", "n_decoded", x.get("n_decoded"), InputRange.MAX_TOKENS);
                if (d != null) {
                    sum = InputRange.saturatingAdd(sum, d);
                    any = true;
                }
            }
            return any ? sum : null;
        }
        return InputRange.count("llamacpp_slots", "n_decoded", nt.get("n_decoded"), InputRange.MAX_TOKENS);
    }

    static Long longOrNull(JsonNode n) {
        return n != null && n.isNumber() ? n.asLong() : null;
    }
}
