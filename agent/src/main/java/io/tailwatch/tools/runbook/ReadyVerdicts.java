package io.tailwatch.tools.runbook;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Each engine's readiness verdict as the agent's status reports it ({@code engines[].ready}, the same verdict as
 * {@code GET /api/v1/engines/NAME/ready}), for {@code status} and {@code diagnose}.
 *
 * @param reasons  the reasons that hold (empty when ready)
 * @param headroom more concurrent requests the engine is estimated to take, or null
 * @param figures  the figures behind the reasons, as {@code name value} words
 */
public record ReadyVerdicts(String engine, boolean ready, List<String> reasons, Integer headroom, List<String> figures) {
    /** Figures shown beside a reason, by reason. */
    private static final Map<String, List<String>> BEHIND = Map.of(
            "queue_full", List.of("in_flight", "requests_running", "requests_waiting", "limit"),
            "queue_wait_over_slo", List.of("queue_wait_seconds", "ttft_slo_seconds"),
            "ttft_over_slo", List.of("ttft_seconds", "ttft_slo_seconds"),
            "memory_pressure", List.of("memory_pressure"),
            "swap_growing", List.of("swap_growth_bytes"),
            "gpu_memory_near_limit", List.of("gpu_memory_share"),
            "thermal_limited", List.of("thermal_level", "cpu_speed_limit"),
            "loading", List.of("engine_state"),
            "down", List.of("engine_state"),
            "unknown", List.of());

    /** The verdicts in the status, in its engines' order; engines without one are left out. */
    public static List<ReadyVerdicts> of(JsonNode status) {
        List<ReadyVerdicts> out = new ArrayList<>();
        for (JsonNode e : status.path("engines")) {
            JsonNode r = e.path("ready");
            if (!r.isObject()) {
                continue;
            }
            List<String> reasons = new ArrayList<>();
            r.path("reasons").forEach(x -> reasons.add(x.asText()));
            List<String> figures = new ArrayList<>();
            Map<String, Boolean> seen = new LinkedHashMap<>();
            for (String reason : reasons) {
                for (String f : BEHIND.getOrDefault(reason, List.of())) {
                    JsonNode v = r.path("figures").get(f);
                    if (v != null && !v.isNull() && seen.put(f, true) == null) {
                        figures.add(f + " " + (v.isNumber() ? num(v.asDouble()) : v.asText()));
                    }
                }
                if (reason.equals("unknown")) {
                    List<String> u = new ArrayList<>();
                    r.path("unknown").forEach(x -> u.add(x.asText()));
                    figures.add("not known: " + String.join(", ", u));
                }
            }
            out.add(new ReadyVerdicts(e.path("name").asText(), r.path("ready").asBoolean(false), reasons,
                    r.path("headroom").isNumber() ? r.path("headroom").asInt() : null, figures));
        }
        return out;
    }

    /** The verdict of {@code engine} in {@code status}, or null. */
    public static ReadyVerdicts of(JsonNode status, String engine) {
        for (ReadyVerdicts v : of(status)) {
            if (v.engine().equals(engine)) {
                return v;
            }
        }
        return null;
    }

    /** In words: {@code ready (headroom 2)} or {@code not ready: queue_full (in_flight 2, limit 1)}. */
    public String text() {
        if (ready) {
            return "ready" + (headroom == null ? "" : " (headroom " + headroom + ")");
        }
        return "not ready: " + String.join(", ", reasons) + (figures.isEmpty() ? "" : " (" + String.join(", ", figures) + ")");
    }

    private static String num(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%.3g", d);
    }
}
