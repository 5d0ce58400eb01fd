package io.tailwatch.tools.runbook;

import io.tailwatch.core.units.Units;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.rules.Signals;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Ranks the likely causes of what the agent sees, following the symptom table:
 * p99 far above p95 -> swap or background jobs; good throughput but stalls -> TTFT and chunk gaps;
 * intermittent errors -> proxy timeout or model load; several signals degrading together -> memory.
 * Where the engine reports its queue: requests waiting with p95 over the baseline -> saturation;
 * an empty queue with p99 far above p95 -> the host (swap, background jobs).
 * Every cause carries the figures that support it. Pure logic over {@link Signals}.
 */
public final class Diagnosis {
    static final double GIB = 1L << 30;
    static final double SWAP_HIGH = GIB;
    static final double SWAP_GROWING = 0.5 * GIB;
    static final double SPREAD = 3.0;
    static final double OVER_BASELINE = 3.0;
    static final double TTFT_SLO = 0.5;
    /** A queue wait below this (seconds) counts as no queue. */
    static final double QUEUE_EMPTY_WAIT = 0.1;

    private Diagnosis() {
    }

    /** One candidate cause, with a score in 0..1 (higher = more likely), its figures and what to do. */
    public record Cause(String id, String title, double score, List<String> figures, String action, String runbook) {
    }

    public static List<Cause> rank(Signals s, String engine) {
        return rank(s, engine, java.util.Map.of());
    }

    /**
     * An error class and what it points at: refused or timed-out connects -> the engine is down;
     * HTTP 5xx -> the engine fails requests; 503 -> busy or loading; 4xx -> the request is wrong (model
     * name, API); first-token timeout -> overload or swap; cut streams and total timeouts -> a proxy
     * timeout or a restarting engine.
     */
    record ErrorClass(String id, String title, double score, String action, String runbook) {
    }

    static ErrorClass classify(String errorType) {
        String t = errorType == null ? "" : errorType;
        if (t.equals("connect_refused") || t.equals("connect_timeout")) {
            return new ErrorClass("errors:down", "Engine not accepting connections: it is down or restarting", 0.85,
                    "Check that the engine process runs and listens on its port; restart it (tailwatch engine restart NAME --yes).",
                    "EngineDown");
        }
        if (t.equals("http_503")) {
            return new ErrorClass("errors:busy", "Engine busy or loading a model (HTTP 503)", 0.6,
                    "Wait for the load to finish or lower the load; check the engine's queue limit and keep-alive.", "ProbeErrors");
        }
        if (t.startsWith("http_5")) {
            return new ErrorClass("errors:engine", "Engine errors: it answers requests with HTTP " + t.substring(5), 0.7,
                    "Read the engine's log for the failing request (out of memory, model load failure, crash in generation); "
                            + "restart it if it keeps failing.", "ProbeErrors");
        }
        if (t.startsWith("http_4")) {
            return new ErrorClass("errors:request", "Requests rejected (HTTP " + t.substring(5) + "): wrong model name, API or key",
                    0.6, "Check the engine's model: and api: in the config against what it serves (tailwatch detect).", "ProbeErrors");
        }
        if (t.equals("first_token_timeout")) {
            return new ErrorClass("errors:overload", "No first token within the deadline: overload, queueing or swap", 0.6,
                    "Check queueing and swap (tailwatch status); lower concurrency or context; move batch work elsewhere.",
                    "TtftOverSlo");
        }
        return new ErrorClass("errors", "Intermittent errors: a proxy timeout shorter than slow responses, or a model (re)loading",
                0.45, "Raise the proxy's read timeout above the p99; keep the model loaded (keep-alive); look for restarts.",
                "ProbeErrors");
    }

    /**
     * Ranks the causes; {@code failures} gives, per engine, the error classes of its recent failed
     * probes (e.g. the last probe of each scenario), which decide what the errors point at.
     */
    public static List<Cause> rank(Signals s, String engine, java.util.Map<String, List<String>> failures) {
        List<Signals.Window> windows = new ArrayList<>();
        for (Signals.Window w : s.windows()) {
            if (engine == null || engine.equals(w.engine())) {
                windows.add(w);
            }
        }
        List<Signals.Engine> engines = new ArrayList<>();
        for (Signals.Engine e : s.engines()) {
            if (engine == null || engine.equals(e.engine())) {
                engines.add(e);
            }
        }
        Signals.Host h = s.host();
        List<Cause> out = new ArrayList<>();

        // Degradation signals shared by several causes.
        Signals.Window worstSpread = max(windows, Diagnosis::spread);
        Signals.Window worstBaseline = max(windows, Diagnosis::overBaseline);
        Signals.Window worstTtft = max(windows, w -> w.ttftP95());
        Signals.Window worstErrors = max(windows, w -> w.errorRatio());
        boolean spreadHigh = worstSpread != null && spread(worstSpread) > SPREAD;
        boolean overBaseline = worstBaseline != null && overBaseline(worstBaseline) >= OVER_BASELINE;
        boolean errors = worstErrors != null && worstErrors.errorRatio() != null && worstErrors.errorRatio() > 0;
        boolean swapHigh = gt(h.swapUsedBytes(), SWAP_HIGH);
        boolean swapGrowing = gt(h.swapChange10mBytes(), SWAP_GROWING);
        boolean pressure = gt(h.memoryPressureLevel(), 0.5);

        // Memory: swap, its growth, pressure, and several signals degrading together.
        {
            List<String> f = new ArrayList<>();
            double score = 0;
            if (h.swapUsedBytes() != null && h.swapUsedBytes() > 0) {
                f.add("swap used " + Units.formatBytes(h.swapUsedBytes()));
                score += swapHigh ? 0.3 : 0.1;
            }
            if (swapGrowing) {
                f.add("swap grew " + Units.formatBytes(h.swapChange10mBytes()) + " in 10m");
                score += h.swapChange10mBytes() > 2 * GIB ? 0.4 : 0.25;
            }
            if (pressure) {
                f.add("memory pressure level " + fmt0(h.memoryPressureLevel()));
                score += h.memoryPressureLevel() >= 2 ? 0.3 : 0.15;
            }
            int degrading = count(spreadHigh, overBaseline, errors, swapHigh || swapGrowing, pressure);
            if (degrading >= 3 && score > 0) {
                f.add(degrading + " signals degrading together (latency, spread, errors, swap, pressure)");
                score += 0.2;
            }
            add(out, "memory", "Memory budget exhausted: the host is swapping (weights or KV cache paged to SSD)", score, f,
                    "Free memory: restart the engine to release KV cache (tailwatch engine restart NAME --yes), lower --max-kv-size "
                            + "(tailwatch kv-budget), unload other models, move batch work elsewhere.",
                    swapGrowing ? "SwapGrowthUnderLoad" : "SwapUsedHigh");
        }

        // p99 >> p95 without memory trouble: background jobs.
        if (spreadHigh) {
            List<String> f = new ArrayList<>();
            f.add(String.format(Locale.ROOT, "%s p99 %s = %.1fx p95 %s (%s samples)", where(worstSpread),
                    secs(worstSpread.e2eP99()), spread(worstSpread), secs(worstSpread.e2eP95()), fmt0(worstSpread.samples())));
            double score = swapGrowing || pressure ? 0.35 : 0.6;
            Signals.Queue q = queueOf(engines, worstSpread.engine());
            if (queueEmpty(q)) {
                f.add(worstSpread.engine() + " queue empty: " + queueFigure(q) + " (the engine is not queueing; the host is)");
                score += 0.2;
            }
            add(out, "background", "Background jobs (Spotlight, Time Machine, sync) or swap stalls stretch the tail", score, f,
                    "Pause Spotlight indexing, backups and sync on the host; check swap (tailwatch status).",
                    "TailLatencySpread");
        }

        // p95 far over the single-request baseline: queueing on a serial engine.
        if (overBaseline) {
            List<String> f = new ArrayList<>();
            f.add(String.format(Locale.ROOT, "%s p95 %s = %.1fx the single-request baseline %s", where(worstBaseline),
                    secs(worstBaseline.e2eP95()), overBaseline(worstBaseline), secs(worstBaseline.baselineP95())));
            double score = swapGrowing ? 0.4 : 0.65;
            Signals.Queue q = queueOf(engines, worstBaseline.engine());
            if (queueBusy(q)) {
                f.add(worstBaseline.engine() + " queue: " + queueFigure(q) + " (saturated: more requests than it serves)");
                score += 0.2;
            }
            add(out, "queueing", "Requests queue on an engine that serves one at a time (more concurrency than it can take)",
                    score, f, "Rate-limit clients or split lanes (interactive vs batch on separate engines); move batch work off-peak.",
                    "LatencyOverBaseline");
        }

        // Good throughput but stalls: time to first token.
        if (worstTtft != null && worstTtft.ttftP95() != null && worstTtft.ttftP95() > TTFT_SLO) {
            List<String> f = new ArrayList<>();
            f.add(where(worstTtft) + " TTFT p95 " + secs(worstTtft.ttftP95()) + " (SLO " + secs(TTFT_SLO) + ")");
            double score = 0.45;
            if (worstTtft.decodeRate() != null && worstTtft.decodeRate() > 0) {
                f.add(String.format(Locale.ROOT, "decode rate still %.1f tok/s", worstTtft.decodeRate()));
                score += 0.1;
            }
            if (worstTtft.e2eP95() != null && worstTtft.e2eP95() > 0 && worstTtft.ttftP95() / worstTtft.e2eP95() > 0.5) {
                f.add(String.format(Locale.ROOT, "%.0f%% of e2e p95 is spent before the first token",
                        100 * worstTtft.ttftP95() / worstTtft.e2eP95()));
                score += 0.1;
            }
            add(out, "ttft", "Stalls before the first token (prefill or queue wait) while decoding is fine", score, f,
                    "Shorten prompts or enable prompt caching; keep interactive traffic on its own lane; check chunk gaps.",
                    "TtftOverSlo");
        }

        // Errors: proxy timeout or model (re)load; engine down.
        for (Signals.Engine e : engines) {
            if (e.up() != null && e.up() == 0 && !(e.loading() != null && e.loading() == 1)) {
                add(out, "down:" + e.engine(), "Engine " + e.engine() + " is down", 0.95,
                        List.of("health check failing (tailwatch_engine_up 0)"),
                        "Check the engine process and its log; restart it (tailwatch engine restart " + e.engine() + " --yes).", "EngineDown");
            }
        }
        if (errors) {
            List<String> f = new ArrayList<>();
            f.add(String.format(Locale.ROOT, "%s error ratio %.1f%%", where(worstErrors), 100 * worstErrors.errorRatio()));
            // The most frequent error class among the engine's recent failures decides the cause.
            List<String> types = failures.getOrDefault(worstErrors.engine(), List.of());
            String dominant = null;
            long best = 0;
            for (String t : types) {
                long n = types.stream().filter(t::equals).count();
                if (n > best) {
                    best = n;
                    dominant = t;
                }
            }
            ErrorClass ec = classify(dominant);
            double score = ec.score();
            if (dominant != null) {
                f.add(String.format(Locale.ROOT, "recent failures of %s: %s", worstErrors.engine(), counts(types)));
            }
            for (Signals.Engine e : engines) {
                if (e.engine().equals(worstErrors.engine()) && e.loading() != null && e.loading() == 1) {
                    f.add("engine " + e.engine() + " reports it is loading a model");
                    score += 0.3;
                }
            }
            if (ec.id().equals("errors:overload") && (swapGrowing || pressure)) {
                f.add("memory is under pressure (swap growing or pressure raised)");
                score += 0.2;
            }
            add(out, ec.id(), ec.title(), score, f, ec.action(), ec.runbook());
        }

        // Thermal throttling.
        {
            List<String> f = new ArrayList<>();
            double score = 0;
            if (h.thermalPressureLevel() != null && h.thermalPressureLevel() >= Rules.THERMAL_HEAVY) {
                f.add("thermal pressure level " + fmt0(h.thermalPressureLevel()));
                score += 0.5;
            }
            if (h.cpuSpeedLimit() != null && h.cpuSpeedLimit() < 0.8) {
                f.add(String.format(Locale.ROOT, "CPU speed limit %.0f%%", 100 * h.cpuSpeedLimit()));
                score += 0.3;
            }
            add(out, "thermal", "Thermal throttling slows decode", score, f,
                    "Check cooling and airflow; avoid fanless machines for sustained serving.", "ThermalThrottling");
        }

        // KV headroom.
        for (Signals.Engine e : engines) {
            for (Signals.Model m : e.models()) {
                if (m.kvHeadroomTokens() != null && m.contextLength() != null && m.kvHeadroomTokens() < m.contextLength()) {
                    add(out, "kv:" + e.engine() + "/" + m.model(), "KV cache for a full context of " + m.model()
                                    + " does not fit in available memory", 0.4,
                            List.of(String.format(Locale.ROOT, "headroom %.0f tokens < context length %.0f",
                                    m.kvHeadroomTokens(), m.contextLength())),
                            "Lower --max-kv-size / context length (tailwatch kv-budget) or use a smaller quantization.",
                            "KvHeadroomLow");
                }
            }
        }
        out.sort(Comparator.comparingDouble(Cause::score).reversed().thenComparing(Cause::id));
        return out;
    }

    private static Signals.Queue queueOf(List<Signals.Engine> engines, String engine) {
        for (Signals.Engine e : engines) {
            if (e.engine().equals(engine)) {
                return e.queue();
            }
        }
        return null;
    }

    /** Requests wait in the engine: it reports some waiting, or (without a count) a queue wait of 0.1 s or more. */
    static boolean queueBusy(Signals.Queue q) {
        if (q == null) {
            return false;
        }
        if (q.waiting() != null) {
            return q.waiting() > 0;
        }
        return q.waitSeconds() != null && q.waitSeconds() >= QUEUE_EMPTY_WAIT;
    }

    /** Nothing waits in the engine: it reports 0 waiting, or (without a count) a queue wait under 0.1 s. */
    static boolean queueEmpty(Signals.Queue q) {
        if (q == null) {
            return false;
        }
        if (q.waiting() != null) {
            return q.waiting() == 0;
        }
        return q.waitSeconds() != null && q.waitSeconds() < QUEUE_EMPTY_WAIT;
    }

    /** The queue figures the engine reported, e.g. "3 waiting, 1 running, wait 2.10 s (estimate)". */
    static String queueFigure(Signals.Queue q) {
        List<String> parts = new ArrayList<>();
        if (q.waiting() != null) {
            parts.add(fmt0(q.waiting()) + " waiting");
        }
        if (q.running() != null) {
            parts.add(fmt0(q.running()) + " running");
        }
        if (q.kvCacheUsage() != null) {
            parts.add(String.format(Locale.ROOT, "KV cache %.0f%%", 100 * q.kvCacheUsage()));
        }
        if (q.waitSeconds() != null) {
            parts.add("wait " + secs(q.waitSeconds()) + ("estimate".equals(q.waitSource()) ? " (estimate)" : ""));
        }
        return String.join(", ", parts);
    }

    static Double spread(Signals.Window w) {
        if (w.e2eP99() == null || w.e2eP95() == null || w.e2eP95() <= 0
                || w.samples() == null || w.samples() < Rules.MIN_SPREAD_SAMPLES) {
            return null;
        }
        return w.e2eP99() / w.e2eP95();
    }

    static Double overBaseline(Signals.Window w) {
        if (w.e2eP95() == null || w.baselineP95() == null || w.baselineP95() <= 0) {
            return null;
        }
        return w.e2eP95() / w.baselineP95();
    }

    private interface Figure {
        Double of(Signals.Window w);
    }

    private static Signals.Window max(List<Signals.Window> ws, Figure f) {
        Signals.Window best = null;
        Double bv = null;
        for (Signals.Window w : ws) {
            Double v = f.of(w);
            if (v != null && (bv == null || v > bv)) {
                best = w;
                bv = v;
            }
        }
        return best;
    }

    private static void add(List<Cause> out, String id, String title, double score, List<String> figures, String action,
                            String runbook) {
        if (score > 0 && !figures.isEmpty()) {
            out.add(new Cause(id, title, Math.min(1.0, Math.round(score * 100) / 100.0), List.copyOf(figures), action,
                    "docs/runbook.md#" + runbook));
        }
    }

    /** "http_500 x3, cut x1", most frequent first. */
    static String counts(List<String> types) {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        types.forEach(t -> m.merge(t, 1L, Long::sum));
        List<java.util.Map.Entry<String, Long>> es = new ArrayList<>(m.entrySet());
        es.sort(java.util.Map.Entry.<String, Long>comparingByValue().reversed());
        List<String> parts = new ArrayList<>();
        es.forEach(e -> parts.add(e.getKey() + " x" + e.getValue()));
        return String.join(", ", parts);
    }

    private static int count(boolean... bs) {
        int n = 0;
        for (boolean b : bs) {
            n += b ? 1 : 0;
        }
        return n;
    }

    private static boolean gt(Double v, double t) {
        return v != null && v > t;
    }

    static String where(Signals.Window w) {
        return w.engine() + "/" + w.model() + "/" + w.scenario();
    }

    static String secs(Double v) {
        if (v == null) {
            return "?";
        }
        return v < 1 ? String.format(Locale.ROOT, "%.0f ms", v * 1000) : String.format(Locale.ROOT, "%.2f s", v);
    }

    static String fmt0(Double v) {
        return v == null ? "?" : String.format(Locale.ROOT, "%.0f", v);
    }
}
