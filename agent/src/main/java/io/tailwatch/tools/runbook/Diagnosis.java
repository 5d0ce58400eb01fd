package io.tailwatch.tools.runbook;

import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.core.units.Units;
import io.tailwatch.metrics.AttrValues.QueueWaitSource;
import io.tailwatch.metrics.AttrValues.RequestsSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Ranks the likely causes of what the agent sees, following the symptom table:
 * p99 far above p95 -> swap or background jobs; good throughput but stalls -> TTFT and chunk gaps;
 * intermittent errors -> proxy timeout or model load; several signals degrading together -> memory.
 * Where the engine reports its queue: requests waiting with p95 over the baseline, or probes timing out
 * while requests wait -> saturation (ranked above a proxy timeout or a model load);
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
        return rank(s, engine, Map.of());
    }

    /**
     * An error class and what it points at: refused or timed-out connects -> the engine is down;
     * HTTP 5xx -> the engine fails requests; 503 -> busy or loading; 4xx -> the request is wrong (model
     * name, API); first-token timeout -> overload or swap; an answer without an output token -> the
     * model or its template; cut streams and total timeouts -> a proxy timeout or a restarting engine.
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
        if (t.equals("no_output")) {
            return new ErrorClass("errors:empty", "Engine ends its answers without a single output token", 0.7,
                    "Try the engine's chat template and stop tokens with a plain request (tailwatch probe); a model that "
                            + "emits its end token first, or a template that ends the turn at once, answers nothing.",
                    "ProbeErrors");
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
     * What the cause rules read: the host, the probe windows and engines (of the asked engine, or all), the
     * error classes of recent failed probes per engine, and the degradation signals several causes share.
     */
    record Findings(Signals.Host host, List<Signals.Window> windows, List<Signals.Engine> engines,
                    Map<String, List<String>> failures, Signals.Window worstSpread, Signals.Window worstBaseline,
                    Signals.Window worstTtft, Signals.Window worstErrors, boolean spreadHigh, boolean overBaseline,
                    boolean errors, boolean swapHigh, boolean swapGrowing, boolean pressure, List<Signals.Lane> lanes) {

        static Findings of(Signals s, String engine, Map<String, List<String>> failures) {
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
            Signals.Window worstSpread = max(windows, Diagnosis::spread);
            Signals.Window worstBaseline = max(windows, Diagnosis::overBaseline);
            Signals.Window worstTtft = max(windows, w -> w.ttftP95());
            Signals.Window worstErrors = max(windows, w -> w.errorRatio());
            List<Signals.Lane> lanes = new ArrayList<>();
            for (Signals.Lane l : s.lanes()) {
                if (engine == null || engine.equals(l.engine())) {
                    lanes.add(l);
                }
            }
            return new Findings(h, windows, engines, failures, worstSpread, worstBaseline, worstTtft, worstErrors,
                    worstSpread != null && Diagnosis.spread(worstSpread) > SPREAD,
                    worstBaseline != null && Diagnosis.overBaseline(worstBaseline) >= OVER_BASELINE,
                    worstErrors != null && worstErrors.errorRatio() != null && worstErrors.errorRatio() > 0,
                    gt(h.swapUsedBytes(), SWAP_HIGH), gt(h.swapChange10mBytes(), SWAP_GROWING),
                    gt(h.memoryPressureLevel(), 0.5), lanes);
        }
    }

    /** One cause: what it concludes from the findings (nothing, one cause, or one per engine or model). */
    @FunctionalInterface
    interface CauseRule {
        List<Cause> causes(Findings f);
    }

    /** Every cause, one rule each. The order only settles nothing: causes are ranked by score, then id. */
    static final List<CauseRule> CAUSES = List.of(Diagnosis::memory, Diagnosis::backgroundJobs, Diagnosis::queueing,
            Diagnosis::ttftStalls, Diagnosis::engineDown, Diagnosis::errors, Diagnosis::thermal, Diagnosis::kvHeadroom,
            Diagnosis::gpuLimit, Diagnosis::laneDelayed);

    /**
     * Ranks the causes; {@code failures} gives, per engine, the error classes of its recent failed
     * probes (e.g. the last probe of each scenario), which decide what the errors point at.
     */
    public static List<Cause> rank(Signals s, String engine, Map<String, List<String>> failures) {
        Findings f = Findings.of(s, engine, failures);
        List<Cause> out = new ArrayList<>();
        for (CauseRule rule : CAUSES) {
            out.addAll(rule.causes(f));
        }
        out.sort(Comparator.comparingDouble(Cause::score).reversed().thenComparing(Cause::id));
        return out;
    }

    /** Memory: swap, its growth, pressure, and several signals degrading together. */
    static List<Cause> memory(Findings x) {
        Signals.Host h = x.host();
        List<String> f = new ArrayList<>();
        double score = 0;
        if (h.swapUsedBytes() != null && h.swapUsedBytes() > 0) {
            f.add("swap used " + Units.formatBytes(h.swapUsedBytes()));
            score += x.swapHigh() ? 0.3 : 0.1;
        }
        if (x.swapGrowing()) {
            f.add("swap grew " + Units.formatBytes(h.swapChange10mBytes()) + " in 10m");
            score += h.swapChange10mBytes() > 2 * GIB ? 0.4 : 0.25;
        }
        if (x.pressure()) {
            f.add("memory pressure level " + fmt0(h.memoryPressureLevel()));
            score += h.memoryPressureLevel() >= 2 ? 0.3 : 0.15;
        }
        int degrading = count(x.spreadHigh(), x.overBaseline(), x.errors(), x.swapHigh() || x.swapGrowing(), x.pressure());
        if (degrading >= 3 && score > 0) {
            f.add(degrading + " signals degrading together (latency, spread, errors, swap, pressure)");
            score += 0.2;
        }
        return cause("memory", "Memory budget exhausted: the host is swapping (weights or KV cache paged to SSD)", score, f,
                "Free memory: restart the engine to release KV cache (tailwatch engine restart NAME --yes), lower --max-kv-size "
                        + "(tailwatch kv-budget), unload other models, move batch work elsewhere.",
                x.swapGrowing() ? "SwapGrowthUnderLoad" : "SwapUsedHigh");
    }

    /** A lane's queue wait at or above this (seconds) counts as the lane being slow, SLO or not. */
    static final double LANE_WAIT_SLOW = 1.0;
    /** Another lane holding at least this share of the engine's mean requests in flight is what holds the engine. */
    static final double LANE_HOLDS = 0.5;

    /**
     * One lane delayed by another's traffic on the same engine (batch delaying interactive): the slow lane's
     * TTFT or e2e p95 over its SLO, or its queue wait p95 at least {@link #LANE_WAIT_SLOW}, while another lane
     * held at least {@link #LANE_HOLDS} of the engine's mean requests in flight over the window. Cites both
     * lanes' figures.
     */
    static List<Cause> laneDelayed(Findings x) {
        List<Cause> out = new ArrayList<>();
        for (Signals.Lane slow : x.lanes()) {
            boolean ttftOver = over(slow.ttftP95(), slow.ttftSlo());
            boolean e2eOver = over(slow.e2eP95(), slow.e2eSlo());
            boolean waits = slow.queueWaitP95() != null && slow.queueWaitP95() >= LANE_WAIT_SLOW;
            if (!ttftOver && !e2eOver && !waits) {
                continue;
            }
            double total = 0;
            Signals.Lane holder = null;
            for (Signals.Lane l : x.lanes()) {
                if (l.engine().equals(slow.engine()) && l.inFlight() != null) {
                    total += l.inFlight();
                    if (!l.lane().equals(slow.lane()) && (holder == null || l.inFlight() > holder.inFlight())) {
                        holder = l;
                    }
                }
            }
            if (holder == null || total <= 0 || holder.inFlight() / total < LANE_HOLDS) {
                continue;
            }
            double share = holder.inFlight() / total;
            List<String> f = new ArrayList<>();
            String of = "lane " + slow.lane() + " on " + slow.engine();
            if (slow.ttftP95() != null) {
                f.add(of + ": TTFT p95 " + secs(slow.ttftP95()) + (slow.ttftSlo() == null ? "" : " (SLO " + secs(slow.ttftSlo()) + ")")
                        + " over " + fmt0(slow.requests()) + " requests in 5m");
            }
            if (e2eOver) {
                f.add(of + ": e2e p95 " + secs(slow.e2eP95()) + " (SLO " + secs(slow.e2eSlo()) + ")");
            }
            if (slow.queueWaitP95() != null) {
                f.add(of + ": waited " + secs(slow.queueWaitP95()) + " (p95) for the engine's response headers");
            }
            f.add(String.format(Locale.ROOT, "lane %s held %.0f%% of %s's requests in flight (%.1f of %.1f on average over 5m)",
                    holder.lane(), share * 100, slow.engine(), holder.inFlight(), total));
            if (slow.inFlight() != null) {
                f.add(String.format(Locale.ROOT, "lane %s itself: %.1f in flight on average", slow.lane(), slow.inFlight()));
            }
            double score = 0.5 + (ttftOver || e2eOver ? 0.15 : 0) + (waits ? 0.15 : 0) + (share >= 0.75 ? 0.1 : 0);
            out.addAll(cause("lanes:" + slow.engine() + ":" + slow.lane(),
                    "Lane " + slow.lane() + " on " + slow.engine() + " delayed by lane " + holder.lane() + "'s requests (they hold the engine)",
                    score, f,
                    "Give lane " + slow.lane() + " its own engine or parallel slots (--parallel, OLLAMA_NUM_PARALLEL; tailwatch "
                            + "kv-budget), or limit lane " + holder.lane() + "'s concurrency or move it off-hours.",
                    waits ? "LaneQueueWaitHigh" : "LaneSloMissed"));
        }
        return out;
    }

    private static boolean over(Double value, Double limit) {
        return value != null && limit != null && value > limit;
    }

    /** p99 far above p95 without memory trouble: background jobs; more so when the engine's queue is empty. */
    static List<Cause> backgroundJobs(Findings x) {
        if (!x.spreadHigh()) {
            return List.of();
        }
        double score = x.swapGrowing() || x.pressure() ? 0.35 : 0.6;
        Signals.Window w = x.worstSpread();
        Signals.Queue q = queueOf(x.engines(), w.engine());
        List<String> f = new ArrayList<>(List.of(String.format(Locale.ROOT, "%s p99 %s = %.1fx p95 %s (%s samples)",
                where(w), secs(w.e2eP99()), spread(w), secs(w.e2eP95()), fmt0(w.samples()))));
        if (queueEmpty(q)) {
            f.add(w.engine() + " queue empty: " + queueFigure(q) + " (the engine is not queueing; the host is)");
            score += 0.2;
        }
        return cause("background", "Background jobs (Spotlight, Time Machine, sync) or swap stalls stretch the tail", score, f,
                "Pause Spotlight indexing, backups and sync on the host; check swap (tailwatch status).",
                "TailLatencySpread");
    }

    /**
     * p95 far over the single-request baseline: queueing on a serial engine; more so when its queue is busy.
     * Probes failing by timeouts while the engine's own queue is busy are queueing too, whatever the
     * baseline says (the failed probes are not in the percentiles): the cause cites the queue.
     */
    static List<Cause> queueing(Findings x) {
        if (!x.overBaseline()) {
            return queuedTimeouts(x);
        }
        Signals.Window w = x.worstBaseline();
        List<String> f = new ArrayList<>();
        f.add(String.format(Locale.ROOT, "%s p95 %s = %.1fx the single-request baseline %s", where(w),
                secs(w.e2eP95()), overBaseline(w), secs(w.baselineP95())));
        double score = x.swapGrowing() ? 0.4 : 0.65;
        Signals.Queue q = queueOf(x.engines(), w.engine());
        String title = QUEUE_TITLE;
        if (queueBusy(q)) {
            f.add(w.engine() + " queue: " + queueFigure(q) + " (saturated: more requests than it serves)");
            score += 0.2;
        } else if (queueEmpty(q)) {
            // Measured: nothing waits. The load slows the requests that run together (a batch shares decode).
            f.add(w.engine() + " queue empty: " + queueFigure(q) + " (nothing waits: the requests it runs together slow each other)");
            title = "Load slows every request, with nothing waiting (requests running together share the engine)";
            score -= 0.2;
        } else {
            // No figure measures the queue: the slowdown is load, and whether it is queueing is not known.
            f.add(w.engine() + ": nothing it reports counts requests waiting (docs/engine-signals.md), so whether they wait "
                    + "or share a batch is not known");
            title = "Load slows requests far past the single-request baseline (queueing not measured)";
        }
        return cause("queueing", title, score, f,
                "Rate-limit clients or split lanes (interactive vs batch on separate engines); move batch work off-peak.",
                "LatencyOverBaseline");
    }

    /** The title of the queueing cause when a figure measures requests waiting. */
    static final String QUEUE_TITLE = "Requests wait in the engine's queue (more concurrent requests than it serves at once)";

    /** The failure classes that a full queue produces: no first token, no end, or a proxy cutting the wait. */
    static final java.util.Set<String> QUEUE_FAILURES = java.util.Set.of("first_token_timeout", "total_timeout", "cut");

    /** The worst-erroring engine's queue, when it is busy and its recent failures are mostly timeouts; else null. */
    static Signals.Queue busyQueueBehindTimeouts(Findings x) {
        if (!x.errors()) {
            return null;
        }
        Signals.Window w = x.worstErrors();
        String dominant = dominant(x.failures().getOrDefault(w.engine(), List.of()));
        Signals.Queue q = queueOf(x.engines(), w.engine());
        return dominant != null && QUEUE_FAILURES.contains(dominant) && queueBusy(q) ? q : null;
    }

    /** Timeouts while the engine's own queue is busy: queueing, ranked above a proxy or a model load. */
    private static List<Cause> queuedTimeouts(Findings x) {
        Signals.Queue q = busyQueueBehindTimeouts(x);
        if (q == null) {
            return List.of();
        }
        Signals.Window w = x.worstErrors();
        List<String> f = new ArrayList<>();
        f.add(w.engine() + " queue: " + queueFigure(q) + " at the time of the failures (saturated: more requests than it serves)");
        f.add(String.format(Locale.ROOT, "%s error ratio %.1f%%", where(w), 100 * w.errorRatio()));
        f.add(String.format(Locale.ROOT, "recent failures of %s: %s", w.engine(),
                counts(x.failures().getOrDefault(w.engine(), List.of()))));
        return cause("queueing", QUEUE_TITLE, x.swapGrowing() ? 0.6 : 0.85, f,
                "Rate-limit clients or split lanes (interactive vs batch on separate engines); give the engine more slots "
                        + "(llama-server --parallel) or raise the probe's timeouts above the queue wait.",
                "LatencyOverBaseline");
    }

    /** The most frequent value, or null for none (the first of equals). */
    static String dominant(List<String> types) {
        String dominant = null;
        long best = 0;
        for (String t : types) {
            long n = types.stream().filter(t::equals).count();
            if (n > best) {
                best = n;
                dominant = t;
            }
        }
        return dominant;
    }

    /** Good throughput but stalls: time to first token over the SLO while decoding goes on. */
    static List<Cause> ttftStalls(Findings x) {
        Signals.Window w = x.worstTtft();
        if (w == null || w.ttftP95() == null || !(w.ttftP95() > TTFT_SLO)) {
            return List.of();
        }
        List<String> f = new ArrayList<>();
        f.add(where(w) + " TTFT p95 " + secs(w.ttftP95()) + " (SLO " + secs(TTFT_SLO) + ")");
        double score = 0.45;
        if (w.decodeRate() != null && w.decodeRate() > 0) {
            f.add(String.format(Locale.ROOT, "decode rate still %.1f tok/s", w.decodeRate()));
            score += 0.1;
        }
        if (w.e2eP95() != null && w.e2eP95() > 0 && w.ttftP95() / w.e2eP95() > 0.5) {
            f.add(String.format(Locale.ROOT, "%.0f%% of e2e p95 is spent before the first token",
                    100 * w.ttftP95() / w.e2eP95()));
            score += 0.1;
        }
        return cause("ttft", "Stalls before the first token (prefill or queue wait) while decoding is fine", score, f,
                "Shorten prompts or enable prompt caching; keep interactive traffic on its own lane; check chunk gaps.",
                "TtftOverSlo");
    }

    /** An engine whose health check fails and that is not loading a model is down. */
    static List<Cause> engineDown(Findings x) {
        List<Cause> out = new ArrayList<>();
        for (Signals.Engine e : x.engines()) {
            if (e.up() != null && e.up() == 0 && !(e.loading() != null && e.loading() == 1)) {
                out.addAll(cause("down:" + e.engine(), "Engine " + e.engine() + " is down", 0.95,
                        List.of("health check failing (tailwatch_engine_up 0)"),
                        "Check the engine process and its log; restart it (tailwatch engine restart " + e.engine() + " --yes).",
                        "EngineDown"));
            }
        }
        return out;
    }

    /**
     * Probe errors: the most frequent error class among the worst engine's recent failures decides the
     * cause ({@link #classify}); a model load or memory pressure behind a first-token timeout adds to it.
     */
    static List<Cause> errors(Findings x) {
        if (!x.errors()) {
            return List.of();
        }
        Signals.Window w = x.worstErrors();
        List<String> f = new ArrayList<>();
        f.add(String.format(Locale.ROOT, "%s error ratio %.1f%%", where(w), 100 * w.errorRatio()));
        List<String> types = x.failures().getOrDefault(w.engine(), List.of());
        String dominant = dominant(types);
        ErrorClass ec = classify(dominant);
        double score = ec.score();
        if (dominant != null) {
            f.add(String.format(Locale.ROOT, "recent failures of %s: %s", w.engine(), counts(types)));
        }
        for (Signals.Engine e : x.engines()) {
            if (e.engine().equals(w.engine()) && e.loading() != null && e.loading() == 1) {
                f.add("engine " + e.engine() + " reports it is loading a model");
                score += 0.3;
            }
        }
        if (ec.id().equals("errors:overload") && (x.swapGrowing() || x.pressure())) {
            f.add("memory is under pressure (swap growing or pressure raised)");
            score += 0.2;
        }
        Signals.Queue busy = busyQueueBehindTimeouts(x);
        if (busy != null) {
            // The engine's own queue explains the timeouts better than a proxy or a load: see queueing.
            f.add(w.engine() + " queue: " + queueFigure(busy) + " (the timeouts are requests waiting in it)");
            score -= 0.2;
        }
        return cause(ec.id(), ec.title(), score, f, ec.action(), ec.runbook());
    }

    /** Thermal throttling: heavy thermal pressure, a lowered CPU speed limit. */
    static List<Cause> thermal(Findings x) {
        Signals.Host h = x.host();
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
        return cause("thermal", "Thermal throttling slows decode", score, f,
                "Check cooling and airflow; avoid fanless machines for sustained serving.", "ThermalThrottling");
    }

    /** Per model: the KV cache of a full context does not fit in the memory left. */
    static List<Cause> kvHeadroom(Findings x) {
        List<Cause> out = new ArrayList<>();
        for (Signals.Engine e : x.engines()) {
            for (Signals.Model m : e.models()) {
                if (m.kvHeadroomTokens() != null && m.contextLength() != null && m.kvHeadroomTokens() < m.contextLength()) {
                    out.addAll(cause("kv:" + e.engine() + "/" + m.model(), "KV cache for a full context of " + m.model()
                                    + " does not fit in available memory", 0.4,
                            List.of(String.format(Locale.ROOT, "headroom %.0f tokens < context length %.0f",
                                    m.kvHeadroomTokens(), m.contextLength())),
                            "Lower --max-kv-size / context length (tailwatch kv-budget) or use a smaller quantization.",
                            "KvHeadroomLow"));
                }
            }
        }
        return out;
    }

    /**
     * Per model: its footprint plus its context's KV cache at or above GpuMemoryLimitNear's default share
     * of the GPU working-set limit (a Mac). Past the limit Metal allocations fail, at prefill first, even
     * while memory pressure is normal; the closer to the limit, the likelier.
     */
    static List<Cause> gpuLimit(Findings x) {
        List<Cause> out = new ArrayList<>();
        double near = io.tailwatch.core.rules.Rules.GPU_MEMORY_LIMIT_NEAR.defaultThreshold();
        for (Signals.Engine e : x.engines()) {
            for (Signals.Model m : e.models()) {
                if (m.gpuMemoryShare() != null && m.gpuMemoryShare() >= near) {
                    out.addAll(cause("gpu:" + e.engine() + "/" + m.model(), m.model() + " is near the GPU working-set limit",
                            0.5 + Math.min(0.4, 4 * (m.gpuMemoryShare() - near)),
                            List.of(String.format(Locale.ROOT, "footprint + KV %.0f%% of the GPU limit", 100 * m.gpuMemoryShare())),
                            "Lower --max-kv-size / context length or the parallel slots (tailwatch kv-budget sizes against "
                                    + "the limit), quantize smaller, or raise iogpu.wired_limit_mb.",
                            "GpuMemoryLimitNear"));
                }
            }
        }
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

    /**
     * The queue figures, each saying what it is measured from, e.g. "3 waiting, 1 running (the engine's count),
     * wait 2.10 s (estimate)".
     */
    static String queueFigure(Signals.Queue q) {
        List<String> parts = new ArrayList<>();
        if (q.waiting() != null) {
            parts.add(fmt0(q.waiting()) + " waiting");
        }
        if (q.running() != null) {
            parts.add(fmt0(q.running()) + " running");
        }
        if (!parts.isEmpty() && q.countsSource() != null) {
            String from = RequestsSource.PROXY.value().equals(q.countsSource())
                    ? " (the proxy's requests in flight against the engine's batch size)" : " (the engine's count)";
            parts.set(parts.size() - 1, parts.get(parts.size() - 1) + from);
        }
        if (q.kvCacheUsage() != null) {
            parts.add(String.format(Locale.ROOT, "KV cache %.0f%%", 100 * q.kvCacheUsage()));
        }
        if (q.waitSeconds() != null) {
            parts.add("wait " + secs(q.waitSeconds()) + (QueueWaitSource.ESTIMATE.value().equals(q.waitSource()) ? " (estimate)" : ""));
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

    /** The cause, when it has a score and figures to show for it; nothing otherwise. Scores are capped at 1. */
    private static List<Cause> cause(String id, String title, double score, List<String> figures, String action,
                                     String runbook) {
        if (score > 0 && !figures.isEmpty()) {
            return List.of(new Cause(id, title, Math.min(1.0, Math.round(score * 100) / 100.0), List.copyOf(figures), action,
                    "docs/runbook.md#" + runbook));
        }
        return List.of();
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

    /** engine/model/scenario, the model by its file name when the engine names it by its path. */
    static String where(Signals.Window w) {
        return w.engine() + "/" + io.tailwatch.core.probe.ModelNames.display(w.model()) + "/" + w.scenario();
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
