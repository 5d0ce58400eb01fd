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
        Signals sig;
        try {
            sig = read(s);
        } catch (Unusual e) {
            // A document this reader does not map itself: data binding decides, as it always did.
            sig = Json.MAPPER.treeToValue(s, Signals.class);
        }
        return new Signals(sig.host() == null ? Signals.EMPTY.host() : sig.host(),
                sig.engines() == null ? List.of() : sig.engines(),
                sig.windows() == null ? List.of() : sig.windows(),
                sig.lanes() == null ? List.of() : sig.lanes());
    }

    /**
     * Reads the signals as data binding does ({@code Json.MAPPER.treeToValue(s, Signals.class)}: snake_case
     * names, unknown names ignored, absent or null as null) for the plain shapes the agent writes: numbers,
     * strings, booleans, null, objects and arrays where the records have them. Anything else (a number
     * written as text, a null in a list, a value of another type) throws {@link Unusual} so that data
     * binding, with its coercions and its errors, reads the document instead. Starting data binding costs
     * a runbook command more than all its own work in a fresh JVM (docs/performance.md, "Runbook command
     * start-up"). {@code AgentStatusTest} holds the two readers to the same records.
     */
    static Signals read(JsonNode s) throws Unusual {
        if (!s.isObject()) {
            throw new Unusual();
        }
        JsonNode h = object(s.get("host"));
        Signals.Host host = h == null ? null : new Signals.Host(number(h, "swap_used_bytes"), number(h, "swap_change10m_bytes"),
                number(h, "memory_pressure_level"), number(h, "memory_available_bytes"), number(h, "memory_total_bytes"),
                number(h, "thermal_pressure_level"), number(h, "cpu_speed_limit"), number(h, "gpu_memory_limit_bytes"),
                number(h, "gpu_memory_in_use_bytes"));
        List<Signals.Engine> engines = null;
        JsonNode es = array(s.get("engines"));
        if (es != null) {
            engines = new ArrayList<>(es.size());
            for (JsonNode e : es) {
                engines.add(engine(element(e)));
            }
        }
        List<Signals.Window> windows = null;
        JsonNode ws = array(s.get("windows"));
        if (ws != null) {
            windows = new ArrayList<>(ws.size());
            for (JsonNode w : ws) {
                w = element(w);
                windows.add(new Signals.Window(text(w, "engine"), text(w, "model"), text(w, "scenario"),
                        number(w, "e2e_p50"), number(w, "e2e_p95"), number(w, "e2e_p99"),
                        number(w, "ttft_p50"), number(w, "ttft_p95"), number(w, "ttft_p99"),
                        number(w, "error_ratio"), number(w, "samples"), number(w, "baseline_p95"),
                        number(w, "decode_rate"), bool(w, "interactive")));
            }
        }
        List<Signals.Lane> lanes = null;
        JsonNode ls = array(s.get("lanes"));
        if (ls != null) {
            lanes = new ArrayList<>(ls.size());
            for (JsonNode l : ls) {
                l = element(l);
                lanes.add(new Signals.Lane(text(l, "engine"), text(l, "lane"), number(l, "requests"), number(l, "goodput"),
                        number(l, "target"), number(l, "ttft_p95"), number(l, "ttft_slo"), number(l, "e2e_p95"),
                        number(l, "e2e_slo"), number(l, "queue_wait_p95"), number(l, "in_flight")));
            }
        }
        return new Signals(host, engines, windows, lanes);
    }

    private static Signals.Engine engine(JsonNode e) throws Unusual {
        List<Signals.Model> models = null;
        JsonNode ms = array(e.get("models"));
        if (ms != null) {
            models = new ArrayList<>(ms.size());
            for (JsonNode m : ms) {
                m = element(m);
                models.add(new Signals.Model(text(m, "model"), number(m, "context_length"), number(m, "kv_headroom_tokens"),
                        number(m, "gpu_memory_share")));
            }
        }
        JsonNode q = object(e.get("queue"));
        Signals.Queue queue = q == null ? null : new Signals.Queue(number(q, "running"), number(q, "waiting"),
                number(q, "kv_cache_usage"), number(q, "wait_seconds"), text(q, "wait_source"), text(q, "counts_source"));
        return new Signals.Engine(text(e, "engine"), number(e, "up"), number(e, "loading"), number(e, "footprint_bytes"),
                number(e, "rss_bytes"), models, queue, number(e, "reached"), number(e, "key_refused"),
                number(e, "gpu_utilization"));
    }

    /** A document {@link #read} leaves to data binding. */
    static final class Unusual extends Exception {
        Unusual() {
            super(null, null, false, false);
        }
    }

    private static boolean absent(JsonNode v) {
        return v == null || v.isNull();
    }

    private static JsonNode object(JsonNode v) throws Unusual {
        if (absent(v)) {
            return null;
        }
        if (!v.isObject()) {
            throw new Unusual();
        }
        return v;
    }

    private static JsonNode array(JsonNode v) throws Unusual {
        if (absent(v)) {
            return null;
        }
        if (!v.isArray()) {
            throw new Unusual();
        }
        return v;
    }

    /** A list's element: an object (a null element or any other value is left to data binding). */
    private static JsonNode element(JsonNode v) throws Unusual {
        if (v == null || !v.isObject()) {
            throw new Unusual();
        }
        return v;
    }

    private static Double number(JsonNode o, String name) throws Unusual {
        JsonNode v = o.get(name);
        if (absent(v)) {
            return null;
        }
        if (!v.isNumber()) {
            throw new Unusual();
        }
        return v.doubleValue();
    }

    private static String text(JsonNode o, String name) throws Unusual {
        JsonNode v = o.get(name);
        if (absent(v)) {
            return null;
        }
        if (!v.isTextual()) {
            throw new Unusual();
        }
        return v.textValue();
    }

    private static Boolean bool(JsonNode o, String name) throws Unusual {
        JsonNode v = o.get(name);
        if (absent(v)) {
            return null;
        }
        if (!v.isBoolean()) {
            throw new Unusual();
        }
        return v.booleanValue();
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
