package io.tailwatch.tools.runbook;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.Signals;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What the runbook commands read from the running agent's /api/v1/status document. */
public final class AgentStatus {
    private AgentStatus() {
    }

    /**
     * The rule signals the status carries under alerts.signals; {@link Signals#EMPTY} when it carries none,
     * and an absent part (host, engines, windows) as empty.
     */
    public static Signals signals(JsonNode status) throws IOException {
        JsonNode s = status.path("alerts").path("signals");
        if (s.isMissingNode() || s.isNull()) {
            return Signals.EMPTY;
        }
        Signals sig = Json.MAPPER.treeToValue(s, Signals.class);
        return new Signals(sig.host() == null ? Signals.EMPTY.host() : sig.host(),
                sig.engines() == null ? List.of() : sig.engines(),
                sig.windows() == null ? List.of() : sig.windows());
    }

    /** Per engine, the error classes of the failed last probes of its scenarios (engines without one are left out). */
    public static Map<String, List<String>> recentFailures(JsonNode status) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (JsonNode e : status.path("engines")) {
            List<String> types = new ArrayList<>();
            for (JsonNode sc : e.path("scenarios")) {
                JsonNode last = sc.path("last");
                if (last.isObject() && !last.path("success").asBoolean(true) && last.path("error_type").isTextual()) {
                    types.add(last.path("error_type").asText());
                }
            }
            if (!types.isEmpty() && e.path("name").isTextual()) {
                out.put(e.path("name").asText(), types);
            }
        }
        return out;
    }
}
