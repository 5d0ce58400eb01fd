package io.tailwatch.tools.runbook;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.core.text.Columns;
import io.tailwatch.core.text.TextFit;
import io.tailwatch.core.units.Units;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders the agent's status and alerts on one screen, worst first. */
public final class StatusScreen {
    private StatusScreen() {
    }

    public static String render(String url, JsonNode status, JsonNode alerts, Signals s) {
        StringBuilder b = new StringBuilder();
        String now = status.path("time").asText("");
        b.append(TextFit.pieces("tailwatch " + status.path("version").asText("?") + " at " + url, List.of(localTime(now)),
                "    ", WIDTH));
        String listenerWarning = status.path("listener").path("warning").asText("");
        if (!listenerWarning.isEmpty()) {
            b.append(TextFit.words("WARNING ", listenerWarning, "        ", WIDTH));
        }
        List<JsonNode> list = new ArrayList<>();
        alerts.path("alerts").forEach(list::add);
        long firing = list.stream().filter(a -> AlertState.of(a.path("state").asText()) == AlertState.FIRING).count();
        long pending = list.stream().filter(a -> AlertState.of(a.path("state").asText()) == AlertState.PENDING).count();
        b.append('\n').append(String.format(Locale.ROOT, "ALERTS  %d firing, %d pending%n", firing, pending));
        for (JsonNode a : list) {
            List<String> labels = new ArrayList<>();
            a.path("labels").fields().forEachRemaining(e -> {
                if (!e.getKey().equals("job") && !e.getKey().equals("instance")) {
                    labels.add(e.getKey() + "=" + e.getValue().asText());
                }
            });
            b.append(TextFit.line("  " + Columns.padRight(a.path("state").asText().toUpperCase(Locale.ROOT), 8) + " "
                    + Columns.padRight(a.path("severity").asText(), 8) + " " + Columns.padRight(a.path("name").asText(), 24)
                    + " value " + Columns.padRight(a.path("value_text").asText(""), 12) + " since "
                    + ago(a.path("since").asText(), now), INDENT, WIDTH));
            if (!labels.isEmpty()) {
                // One piece per label: a line breaks between labels, a label wider than a line after a / in it.
                b.append(TextFit.pieces(INDENT, labels, INDENT, WIDTH));
            }
            b.append(TextFit.words(INDENT, a.path("summary").asText(), INDENT, WIDTH));
            b.append(TextFit.words(INDENT + "-> ", a.path("runbook").asText(), INDENT + "   ", WIDTH));
        }
        Signals.Host h = s.host();
        List<String> host = new ArrayList<>();
        String swap = "swap " + (h.swapUsedBytes() == null ? "unknown" : Units.formatBytes(h.swapUsedBytes()) + " used");
        if (h.swapChange10mBytes() != null) {
            swap += " (+" + Units.formatBytes(h.swapChange10mBytes()) + " in 10m)";
        }
        host.add(swap);
        host.add("memory pressure " + level(h.memoryPressureLevel(), "normal", "warning", "critical"));
        if (h.memoryAvailableBytes() != null) {
            host.add("available " + Units.formatBytes(h.memoryAvailableBytes())
                    + (h.memoryTotalBytes() == null ? "" : " of " + Units.formatBytes(h.memoryTotalBytes())));
        }
        if (h.gpuMemoryLimitBytes() != null) {
            // Beside memory: the smaller ceiling a model on the GPU meets first.
            host.add("gpu limit " + Units.formatBytes(h.gpuMemoryLimitBytes())
                    + (h.gpuMemoryInUseBytes() == null ? "" : String.format(Locale.ROOT, " (%s in use, %.0f%%)",
                    Units.formatBytes(h.gpuMemoryInUseBytes()), 100 * h.gpuMemoryInUseBytes() / h.gpuMemoryLimitBytes())));
        }
        host.add("thermal " + level(h.thermalPressureLevel(), "nominal", "moderate", "heavy", "trapping", "sleeping"));
        if (h.cpuSpeedLimit() != null) {
            host.add(String.format(Locale.ROOT, "cpu limit %.0f%%", 100 * h.cpuSpeedLimit()));
        }
        host.addAll(powerAndSensors(status.path("host")));
        b.append('\n').append(TextFit.pieces("HOST  ", host, "        ", WIDTH));
        List<Signals.Engine> engines = new ArrayList<>(s.engines());
        engines.sort(Comparator.comparingInt((Signals.Engine e) -> engineRank(e)).thenComparing(Signals.Engine::engine));
        b.append('\n').append("ENGINES").append(engines.isEmpty() ? "  none reported\n" : "\n");
        for (Signals.Engine e : engines) {
            String memory = e.footprintBytes() != null ? "footprint " + Units.formatBytes(e.footprintBytes())
                    : e.rssBytes() != null ? "rss " + Units.formatBytes(e.rssBytes()) : "memory unknown";
            List<String> detail = new ArrayList<>();
            if (e.gpuUtilization() != null) {
                // The engine's own share of the GPU (macOS), beside its memory.
                detail.add(String.format(Locale.ROOT, "gpu %.0f%%", 100 * e.gpuUtilization()));
            }
            for (Signals.Model m : e.models()) {
                detail.add(m.model());
                if (m.kvHeadroomTokens() != null) {
                    detail.add(String.format(Locale.ROOT, "(kv headroom %.0f tok", m.kvHeadroomTokens())
                            + (m.contextLength() == null ? ")" : String.format(Locale.ROOT, ", context %.0f)", m.contextLength())));
                }
                if (m.gpuMemoryShare() != null) {
                    detail.add(String.format(Locale.ROOT, "(gpu %.0f%% of limit)", 100 * m.gpuMemoryShare()));
                }
            }
            ReadyVerdicts ready = ReadyVerdicts.of(status, e.engine());
            if (ready != null) {
                detail.add(ready.text());
            }
            if (e.queue() != null) {
                String q = Diagnosis.queueFigure(e.queue());
                if (!q.isEmpty()) {
                    detail.add("queue " + q);
                }
            }
            b.append(TextFit.pieces(("  " + Columns.padRight(e.engine(), 16) + " " + Columns.padRight(engineState(e), 8) + " "
                    + memory).stripTrailing(), detail, "      ", WIDTH));
        }
        b.append(discovery(status.path("discovery"), now));
        List<Signals.Window> windows = new ArrayList<>(s.windows());
        windows.sort(Comparator.comparingDouble(StatusScreen::badness).reversed());
        b.append('\n').append("WINDOWS").append(windows.isEmpty() ? "  no probe windows yet\n" : "\n");
        if (!windows.isEmpty()) {
            b.append(windowRow("engine/model/scenario", "e2e p50/p95/p99", "ttft p95", "errors", "samples", "baseline p95"));
        }
        for (Signals.Window w : windows) {
            String where = Diagnosis.where(w);
            if (Columns.width(where) > 32) {
                // The full engine/model/scenario on its own line(s), the figures under it in their columns.
                b.append(whereLines(w));
                where = "";
            }
            b.append(windowRow(where,
                    Diagnosis.secs(w.e2eP50()) + "/" + Diagnosis.secs(w.e2eP95()) + "/" + Diagnosis.secs(w.e2eP99()),
                    Diagnosis.secs(w.ttftP95()),
                    w.errorRatio() == null ? "?" : String.format(Locale.ROOT, "%.1f%%", 100 * w.errorRatio()),
                    Diagnosis.fmt0(w.samples()), Diagnosis.secs(w.baselineP95())));
        }
        b.append(lanes(s.lanes()));
        return b.toString();
    }

    /** One line of the windows table: columns of 32, 24, 9, 7 and 7 terminal columns, then the last. */
    private static String windowRow(String where, String e2e, String ttft, String errors, String samples, String baseline) {
        return "  " + Columns.padRight(where, 32) + " " + Columns.padRight(e2e, 24) + " " + Columns.padRight(ttft, 9) + " "
                + Columns.padRight(errors, 7) + " " + Columns.padRight(samples, 7) + " " + baseline + "\n";
    }

    /**
     * The lanes of the engines' metering proxies over their window, beside the probe windows: requests,
     * goodput against the target, TTFT and e2e p95 against the SLO, the wait for response headers, and the
     * lane's mean requests in flight with its share of the engine's. Empty without a proxy.
     */
    static String lanes(List<Signals.Lane> lanes) {
        if (lanes.isEmpty()) {
            return "";
        }
        Map<String, Double> total = new java.util.HashMap<>();
        for (Signals.Lane l : lanes) {
            if (l.inFlight() != null) {
                total.merge(l.engine(), l.inFlight(), Double::sum);
            }
        }
        StringBuilder b = new StringBuilder("\nLANES  metering proxy, last 5m\n");
        b.append(String.format(Locale.ROOT, "  %-32s %-8s %-15s %-17s %-17s %-9s %s%n", "engine/lane", "requests",
                "goodput/target", "ttft p95/SLO", "e2e p95/SLO", "wait p95", "in flight (share)"));
        for (Signals.Lane l : lanes) {
            String where = l.engine() + "/" + l.lane();
            if (Columns.width(where) > 32) {
                b.append(TextFit.line("  " + where, "  ", WIDTH));
                where = "";
            }
            Double t = total.get(l.engine());
            String inFlight = l.inFlight() == null ? "?" : String.format(Locale.ROOT, "%.2f", l.inFlight())
                    + (t == null || t <= 0 ? "" : String.format(Locale.ROOT, " (%.0f%%)", 100 * l.inFlight() / t));
            // Names are the config's (any script): padded by the columns they take, not their chars.
            b.append("  ").append(Columns.padRight(where, 32)).append(String.format(Locale.ROOT, " %-8s %-15s %-17s %-17s %-9s %s%n",
                    Diagnosis.fmt0(l.requests()),
                    ratio(l.goodput()) + "/" + ratio(l.target()), Diagnosis.secs(l.ttftP95()) + "/" + limit(l.ttftSlo()),
                    Diagnosis.secs(l.e2eP95()) + "/" + limit(l.e2eSlo()), Diagnosis.secs(l.queueWaitP95()), inFlight));
        }
        return b.toString();
    }

    private static String ratio(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
    }

    private static String limit(Double v) {
        return v == null ? "-" : Diagnosis.secs(v);
    }

    /**
     * With {@code engines: auto}: when discovery runs next, and for found engines no longer there (still
     * paged: they may have crashed) how to forget them. Empty without discovery.
     */
    public static String discovery(JsonNode d, String now) {
        if (d.isMissingNode() || d.isNull()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        String next = d.path("next_check").asText("");
        String when = next.isEmpty() ? "when the first check is done"
                : "next check " + localTime(next) + " (" + until(next, now) + ")";
        b.append('\n').append(TextFit.words("DISCOVERY  ", "engines: auto; " + when + "; a port that opens is checked within "
                + d.path("port_watch").asText("?"), "           ", WIDTH));
        List<String> missing = new ArrayList<>();
        d.path("missing").forEach(m -> missing.add(m.asText()));
        if (!missing.isEmpty()) {
            b.append(TextFit.words("  hint: ", String.join(", ", missing) + (missing.size() == 1 ? " was" : " were")
                    + " found before and no longer answer" + (missing.size() == 1 ? "s" : "") + "; still paged as EngineDown"
                    + " (it may have crashed). If gone on purpose: " + d.path("forget").asText(""), "        ", WIDTH));
        }
        return b.toString();
    }

    /** "in 42 s", "in 3 min", or "due" for a time at or before {@code now}. */
    static String until(String at, String now) {
        try {
            long s = java.time.Duration.between(java.time.Instant.parse(now), java.time.Instant.parse(at)).toSeconds();
            return s <= 0 ? "due" : s < 120 ? "in " + s + " s" : "in " + (s / 60) + " min";
        } catch (RuntimeException e) {
            return "?";
        }
    }

    /** Worse windows first: the larger of p95/baseline and p99/p95, plus errors. */
    static double badness(Signals.Window w) {
        double v = 0;
        Double ob = Diagnosis.overBaseline(w);
        Double sp = Diagnosis.spread(w);
        v = Math.max(v, ob == null ? 0 : ob);
        v = Math.max(v, sp == null ? 0 : sp);
        if (w.errorRatio() != null) {
            v += 10 * w.errorRatio();
        }
        return v;
    }

    private static int engineRank(Signals.Engine e) {
        return switch (engineState(e)) {
            case "DOWN" -> 0;
            case "NEVER-REACHED", "NEEDS-KEY" -> 1;
            case "loading" -> 2;
            default -> 3;
        };
    }

    private static String engineState(Signals.Engine e) {
        if (e.loading() != null && e.loading() == 1) {
            return "loading";
        }
        if (e.needsKey()) {
            // It answers HTTP 401/403: the agent needs an API key for it (a warning, not EngineDown).
            return "NEEDS-KEY";
        }
        if (e.up() == null) {
            return "unknown";
        }
        if (e.neverReachable()) {
            // Configured but never answered since the agent started: a warning, not EngineDown.
            return "NEVER-REACHED";
        }
        return e.up() == 1 ? "up" : "DOWN";
    }

    private static String level(Double v, String... names) {
        if (v == null) {
            return "unknown";
        }
        int i = (int) Math.round(v);
        return i >= 0 && i < names.length ? names[i] + "(" + i + ")" : String.valueOf(i);
    }

    /** The screen fits a 100-column terminal; --json has everything unabridged. */
    static final int WIDTH = 100;

    /** "3m ago" from an ISO instant relative to the status time (the agent's clock), or the text as given. */
    static String ago(String since, String now) {
        try {
            java.time.Duration d = java.time.Duration.between(java.time.Instant.parse(since),
                    now.isEmpty() ? java.time.Instant.now() : java.time.Instant.parse(now));
            long sec = Math.max(0, d.getSeconds());
            if (sec < 60) {
                return sec + "s ago";
            }
            if (sec < 3600) {
                return sec / 60 + "m ago";
            }
            if (sec < 86_400) {
                return sec / 3600 + "h" + (sec % 3600 / 60 > 0 ? " " + sec % 3600 / 60 + "m" : "") + " ago";
            }
            return sec / 86_400 + "d ago";
        } catch (java.time.format.DateTimeParseException e) {
            return since;
        }
    }

    /** An ISO instant as local time (yyyy-MM-dd HH:mm:ss zone), or the text as given. */
    static String localTime(String instant) {
        try {
            return java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z", Locale.ROOT)
                    .format(java.time.Instant.parse(instant).atZone(java.time.ZoneId.systemDefault()));
        } catch (java.time.format.DateTimeParseException e) {
            return instant;
        }
    }

    /** engine/model/scenario in full, broken after a slash when it is wider than the screen. */
    private static String whereLines(Signals.Window w) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder("  ");
        String[] parts = {w.engine() + "/", io.tailwatch.core.probe.ModelNames.display(w.model()) + "/", w.scenario()};
        for (String part : parts) {
            if (Columns.width(line) + Columns.width(part) > WIDTH && !line.toString().isBlank()) {
                out.append(TextFit.pieces(line.toString(), List.of(), "    ", WIDTH));
                line.setLength(0);
                line.append("    ");
            }
            line.append(part);
        }
        return out + TextFit.pieces(line.toString(), List.of(), "    ", WIDTH);
    }

    /** Continuation lines of an alert line up under its name. */
    private static final String INDENT = "           ";

    /**
     * Whole-machine power (with where it came from), the battery, rails macOS froze (named, never 0 W),
     * fans and the hottest sensor; each piece only when the host part has it.
     */
    static List<String> powerAndSensors(JsonNode h) {
        List<String> out = new ArrayList<>();
        JsonNode sources = h.path("power_sources");
        if (h.path("system_power_watts").isNumber()) {
            out.add(String.format(Locale.ROOT, "system power %.1f W (%s)", h.path("system_power_watts").asDouble(),
                    sources.path("system").asText("?")));
        }
        JsonNode battery = h.path("battery");
        if (battery.path("power_watts").isNumber()) {
            double w = battery.path("power_watts").asDouble();
            out.add(String.format(Locale.ROOT, "battery %s %.1f W", w < 0 ? "discharging" : "charging", Math.abs(w))
                    + (battery.path("charge_ratio").isNumber()
                    ? String.format(Locale.ROOT, " at %.0f%%", 100 * battery.path("charge_ratio").asDouble()) : ""));
        }
        h.path("power_unavailable").fields().forEachRemaining(e ->
                out.add("power " + e.getKey() + " " + e.getValue().asText()));
        for (JsonNode f : h.path("fans")) {
            if (f.path("rpm").isNumber()) {
                out.add(String.format(Locale.ROOT, "%s %.0f rpm", f.path("name").asText("fan"), f.path("rpm").asDouble())
                        + (f.path("max_rpm").isNumber() ? String.format(Locale.ROOT, " of %.0f", f.path("max_rpm").asDouble()) : ""));
            }
        }
        JsonNode hottest = null;
        for (JsonNode t : h.path("thermal").path("sensors")) {
            if (t.path("celsius").isNumber() && (hottest == null || t.path("celsius").asDouble() > hottest.path("celsius").asDouble())) {
                hottest = t;
            }
        }
        if (hottest != null) {
            out.add(String.format(Locale.ROOT, "hottest %s %.1f C", hottest.path("name").asText("?"), hottest.path("celsius").asDouble()));
        }
        return out;
    }
}
