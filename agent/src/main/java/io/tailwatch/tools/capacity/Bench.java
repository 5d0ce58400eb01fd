package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.stats.Stats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The benchmark methodology: per engine a preflight gate, one warm-up, then N measured runs at
 * temperature 0, one at a time. The headline is the median decode tok/s, with mean, sample
 * standard deviation (N-1) and the coefficient of variation class beside it; sanity checks drop
 * impossible runs and flag suspicious ones; a monotonic fall of 5 % or more is reported as thermal
 * drift. Between engines the previous model is unloaded and the host cools down: up to 30 s for
 * memory pressure to return to normal, then 5 s more.
 */
public final class Bench {
    public static final double MAX_PLAUSIBLE_TPS = 500;
    public static final double MAX_PLAUSIBLE_TTFT_SECONDS = 60;
    public static final double DRIFT = 0.05;

    /** One engine (and model) to measure. {@code unload} frees its memory afterwards; null when the engine has no way. */
    /**
     * One engine to run: {@code model} is what the requests name ({@link EngineClient#UNNAMED_MODEL}: none),
     * {@code reportedModel} what the report and history call it (null: not known).
     */
    public record Target(String engine, String api, EngineClient client, String model, Runnable unload,
                         String reportedModel) {
        public Target(String engine, String api, EngineClient client, String model, Runnable unload) {
            this(engine, api, client, model, unload, model);
        }
    }

    public record Options(int runs, int promptTokens, int maxTokens, Duration firstTokenTimeout, Duration requestTimeout,
                          Duration coolDownMaxWait, Duration coolDownSettle, Duration coolDownPoll, boolean force) {
        public Options {
            if (runs < 1 || runs > 100) {
                throw new IllegalArgumentException("--runs must be in 1..100, got " + runs);
            }
            if (promptTokens < 1 || maxTokens < 1) {
                throw new IllegalArgumentException("--prompt-tokens and --max-tokens must be >= 1");
            }
        }

        /** The parameters a report states: runs, request shape (temperature 0), cool-down, and --force. */
        public java.util.Map<String, Object> parameters() {
            java.util.Map<String, Object> params = new java.util.LinkedHashMap<>();
            params.put("runs", runs);
            params.put("prompt_tokens", promptTokens);
            params.put("max_tokens", maxTokens);
            params.put("temperature", 0.0);
            params.put("cool_down", io.tailwatch.core.units.Units.format(coolDownSettle));
            params.put("cool_down_wait", io.tailwatch.core.units.Units.format(coolDownMaxWait));
            params.put("forced", force);
            return params;
        }
    }

    /** One measured run. {@code discarded} runs are kept for the record but not in the statistics. */
    public record Run(int index, ProbeResult result, HostFigures after, boolean discarded, List<String> warnings) {
    }

    /**
     * Result for one engine. Figures are NaN when there is nothing to compute them from.
     *
     * @param refused   why the preflight gate refused this engine (empty when it ran)
     * @param drift     relative fall across runs when thermal drift was seen, else NaN
     * @param coolDown  what the cool-down before this engine did, null for the first engine
     */
    public record EngineResult(Target target, HostFigures preflight, List<String> refused, ProbeResult warmup,
                               List<Run> runs, double medianTps, double meanTps, double stddevTps, double cv,
                               Stats.Stability stability, double drift, double medianTtft, double medianWatts,
                               double tpsPerWatt, List<String> warnings, String coolDown, Instant start, Instant end) {
        public int valid() {
            return (int) runs.stream().filter(r -> !r.discarded()).count();
        }
    }

    /** Waits; tests pass one that returns at once. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    /**
     * The decode rate of one run: the engine's own figure where it reports one (Ollama
     * eval_count / eval_duration), else the client-side streaming rate.
     */
    public static Double decodeRate(ProbeResult r) {
        Double server = r.serverDecodeTokensPerSecond();
        if (server != null && server > 0) {
            return server;
        }
        return r.decodeTokensPerSecond();
    }

    /** Where {@link #decodeRate} came from: engine or client; null when there is none. */
    public static String decodeRateSource(ProbeResult r) {
        Double server = r.serverDecodeTokensPerSecond();
        if (server != null && server > 0) {
            return "engine";
        }
        return r.decodeTokensPerSecond() == null ? null : "client";
    }

    /** Progress callbacks, on the thread that runs the benchmark. */
    public interface Listener {
        /** An engine's measurement starts: {@code requests} = the warm-up plus the measured runs. */
        default void engine(Target t, int requests) {
        }

        /** {@code done} requests of this engine finished (1 = the warm-up); {@code run} is null for the warm-up. */
        default void request(Target t, int done, ProbeResult r, Run run) {
        }

        /** The cool-down before the next engine starts. */
        default void coolDown(Target next) {
        }
    }

    private final Supplier<HostFigures> host;
    private final Options options;
    private volatile Listener listener = new Listener() {
    };
    private final Clock clock;
    private final Sleeper sleeper;
    private volatile boolean cancelled;
    private volatile Target current;

    public Bench(Supplier<HostFigures> host, Options options, Clock clock, Sleeper sleeper) {
        this.host = host;
        this.options = options;
        this.clock = clock;
        this.sleeper = sleeper;
    }

    /**
     * Stops the run (Ctrl-C): the request in flight is aborted and dropped, no further run or engine
     * starts, and {@link #run} returns what was measured so far. Safe from any thread.
     */
    public void cancel() {
        cancelled = true;
        Target t = current;
        if (t != null) {
            t.client().abort();
        }
    }

    public Bench listener(Listener l) {
        this.listener = l;
        return this;
    }

    public boolean cancelled() {
        return cancelled;
    }

    /** Measures each target in turn; after {@link #cancel} the engines measured so far, the last one partly. */
    public List<EngineResult> run(List<Target> targets) throws InterruptedException {
        List<EngineResult> out = new ArrayList<>();
        Target previous = null;
        for (Target t : targets) {
            if (cancelled) {
                break;
            }
            String coolDown = null;
            if (previous != null) {
                if (previous.unload() != null) {
                    previous.unload().run();
                }
                listener.coolDown(t);
                coolDown = coolDown();
                if (cancelled) {
                    break;
                }
            }
            current = t;
            out.add(measure(t, coolDown));
            previous = t;
        }
        current = null;
        if (!cancelled && previous != null && targets.size() > 1 && previous.unload() != null) {
            previous.unload().run();
        }
        return out;
    }

    /** Waits up to coolDownMaxWait for memory pressure to return to normal, then coolDownSettle more. */
    String coolDown() throws InterruptedException {
        Instant start = clock.instant();
        Instant until = start.plus(options.coolDownMaxWait());
        HostFigures h = host.get();
        boolean waitedAtAll = false;
        while (h.pressureLevel() != null && h.pressureLevel() > 0 && clock.instant().isBefore(until)) {
            waitedAtAll = true;
            sleeper.sleep(options.coolDownPoll());
            h = host.get();
        }
        double waited = Duration.between(start, clock.instant()).toMillis() / 1000.0;
        String pressure = HostFigures.pressureName(h.pressureLevel());
        sleeper.sleep(options.coolDownSettle());
        String settle = io.tailwatch.core.units.Units.format(options.coolDownSettle());
        if (h.pressureLevel() == null) {
            return "memory pressure unknown on this host; paused " + settle;
        }
        if (!waitedAtAll) {
            return "memory pressure normal; paused " + settle;
        }
        return String.format(Locale.ROOT, "waited %.1f s for memory pressure to be normal (now %s), then paused %s", waited,
                pressure, settle);
    }

    EngineResult measure(Target t, String coolDown) {
        Instant start = clock.instant();
        HostFigures pre = host.get();
        List<String> refused = options.force() ? List.of() : Preflight.refusals(pre, io.tailwatch.core.host.platform.HostSources.isMac());
        if (!refused.isEmpty()) {
            return new EngineResult(t, pre, refused, null, List.of(), Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                    Stats.Stability.UNKNOWN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, List.of(), coolDown, start,
                    clock.instant());
        }
        ProbeRequest req = new ProbeRequest(t.model(), options.promptTokens(), options.maxTokens(), 0.0,
                options.firstTokenTimeout(), options.requestTimeout());
        listener.engine(t, options.runs() + 1);
        // A warm-up the interruption aborted is neither a success nor the engine's failure: none.
        ProbeResult warmup = cancelled ? null : t.client().probe(req);
        warmup = cancelled ? null : warmup;
        if (warmup != null) {
            listener.request(t, 1, warmup, null);
        }
        List<String> warnings = new ArrayList<>();
        if (warmup != null && !warmup.success()) {
            warnings.add("warm-up failed: " + warmup.errorType()
                    + (warmup.errorMessage() == null ? "" : " (" + warmup.errorMessage() + ")"));
        }
        host.get(); // starts the power interval at the first measured run
        List<Run> runs = new ArrayList<>();
        for (int i = 1; i <= options.runs() && !cancelled; i++) {
            ProbeResult r = t.client().probe(req);
            if (cancelled && !r.success()) {
                break; // most likely aborted by the interruption: not a measurement
            }
            HostFigures after = host.get();
            List<String> w = new ArrayList<>();
            boolean discard = false;
            Double tps = decodeRate(r);
            if (!r.success()) {
                discard = true;
                w.add("failed: " + r.errorType());
            } else if (tps == null || !(tps > 0)) {
                discard = true;
                w.add("discarded: decode tok/s " + (tps == null ? "unknown" : tps) + " is not above 0");
            } else if (tps > MAX_PLAUSIBLE_TPS) {
                w.add(String.format(Locale.ROOT, "decode %.0f tok/s is above %.0f: check the measurement", tps,
                        MAX_PLAUSIBLE_TPS));
            }
            if (r.ttftSeconds() != null && r.ttftSeconds() > MAX_PLAUSIBLE_TTFT_SECONDS) {
                w.add(String.format(Locale.ROOT, "TTFT %.1f s is above %.0f s: suspect swap or a model load", r.ttftSeconds(),
                        MAX_PLAUSIBLE_TTFT_SECONDS));
            }
            Run run = new Run(i, r, after, discard, List.copyOf(w));
            runs.add(run);
            listener.request(t, i + 1, r, run);
        }
        for (Run r : runs) {
            r.warnings().forEach(w -> warnings.add("run " + r.index() + ": " + w));
        }
        double[] tps = runs.stream().filter(r -> !r.discarded()).mapToDouble(r -> decodeRate(r.result()))
                .toArray();
        double[] ttft = runs.stream().filter(r -> !r.discarded() && r.result().ttftSeconds() != null)
                .mapToDouble(r -> r.result().ttftSeconds()).toArray();
        double[] watts = runs.stream().filter(r -> !r.discarded() && r.after().powerWatts() != null)
                .mapToDouble(r -> r.after().powerWatts()).toArray();
        double median = Stats.median(tps);
        double cv = Stats.coefficientOfVariation(tps);
        double drift = Stats.thermalDrift(tps, DRIFT);
        if (!Double.isNaN(drift)) {
            warnings.add(String.format(Locale.ROOT, "thermal drift: decode tok/s fell %.1f %% run over run", drift * 100));
        }
        double medianWatts = Stats.median(watts);
        double perWatt = medianWatts > 0 ? median / medianWatts : Double.NaN;
        return new EngineResult(t, pre, List.of(), warmup, List.copyOf(runs), median, Stats.mean(tps),
                Stats.sampleStdDev(tps), cv, Stats.stability(cv), drift, Stats.median(ttft), medianWatts, perWatt,
                List.copyOf(warnings), coolDown, start, clock.instant());
    }
}
