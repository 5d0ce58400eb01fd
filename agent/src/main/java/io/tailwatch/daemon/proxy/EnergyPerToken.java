package io.tailwatch.daemon.proxy;

import io.tailwatch.core.host.HostPower;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PowerSource;
import io.tailwatch.metrics.EnergyMetrics;
import io.tailwatch.metrics.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Joules per output token per engine over a sliding window of host samples. Each host sample adds one
 * interval: the host's energy in it (its average power times its length) and each engine's output tokens
 * generated in it (the growth of the engine's cumulative count: proxied requests plus probes). Over the
 * window, engine {@code e} is given {@code E * t_e / T} joules (host energy {@code E}, its tokens
 * {@code t_e}, all engines' {@code T}), so its joules per token is {@code E / T}.
 *
 * <p>Unknown is not zero: the window has no figure while any interval in it has no host power, while no
 * engine generated a token in it, and before the second sample; an engine with no token in the window has
 * none. A change of power source (rails to system, as when macOS freezes a rail) starts the window again,
 * so one figure never mixes two sources. Bounded: at most {@link #MAX_INTERVALS} intervals of at most
 * {@link #MAX_ENGINES} engines each.
 */
public final class EnergyPerToken {
    public static final Duration WINDOW = Duration.ofMinutes(1);
    static final int MAX_INTERVALS = 3_600;
    static final int MAX_ENGINES = 64;
    /** The most counters a sample is read for (two per engine). */
    static final int MAX_COUNTERS = 2 * MAX_ENGINES;

    /** One host sample's interval; {@code joules} NaN when the host's power was unknown. */
    private record Interval(long endNanos, double seconds, double joules, PowerSource source, Map<String, Long> tokens) {
    }

    /** One engine's share of the window. */
    public record Share(String engine, long tokens, double joules, double joulesPerToken, double watts) {
    }

    /** The window's figures: host energy, all tokens, and each engine's share (engines with tokens only). */
    public record Window(PowerSource source, double seconds, double hostJoules, long tokens, List<Share> engines) {
    }

    private final Duration window;
    private final ArrayDeque<Interval> intervals = new ArrayDeque<>();
    /** Whether a sample came before: the first one only sets the counters and the time to measure from. */
    private boolean sampled;
    private long lastNanos;
    private Map<String, Long> lastTokens = Map.of();

    public EnergyPerToken() {
        this(WINDOW);
    }

    EnergyPerToken(Duration window) {
        this.window = window;
    }

    /** Separates an engine's name from the name of one of its token counters in {@link #sample}'s keys. */
    public static final char COUNTER = '\u0000';

    /**
     * One host sample at {@code at} (tests: its wall time stands for the monotonic clock), as
     * {@link #sample(long, HostPower, Map)}.
     */
    public synchronized void sample(Instant at, HostPower power, Map<String, Long> tokens) {
        sample(at.getEpochSecond() * 1_000_000_000L + at.getNano(), power, tokens);
    }

    /**
     * One host sample at {@code monotonicNanos} (System.nanoTime): {@code power} its host power over the
     * interval since the previous sample (null: unknown), {@code tokens} cumulative output-token counters now,
     * keyed by the engine's name or by the engine's name, {@link #COUNTER} and a counter's name when an engine
     * has several (its probes, its proxy). Each counter's growth is taken on its own, so one that starts again
     * (its engine's probes configured anew) does not pass another's whole count off as new. The intervals and
     * the window are timed by the monotonic clock alone: a step of the wall clock (NTP) neither stretches the
     * energy of an interval, nor drops intervals from the window, nor keeps old ones in it.
     */
    public synchronized void sample(long monotonicNanos, HostPower power, Map<String, Long> tokens) {
        Map<String, Long> now = bounded(tokens);
        if (sampled && monotonicNanos > lastNanos) {
            double seconds = (monotonicNanos - lastNanos) / 1e9;
            Map<String, Long> delta = new TreeMap<>();
            now.forEach((key, count) -> {
                Long before = lastTokens.get(key);
                // A count that went back started again (the engine was configured anew): all of it is new.
                long d = before == null || count < before ? count : count - before;
                if (d > 0) {
                    int cut = key.indexOf(COUNTER);
                    delta.merge(cut < 0 ? key : key.substring(0, cut), d, InputRange::saturatingAdd);
                }
            });
            PowerSource source = power == null ? null : power.source();
            Interval previous = intervals.peekLast();
            if (source != null && previous != null && previous.source() != null && previous.source() != source) {
                intervals.clear();
            }
            double joules = power == null || !(power.watts() >= 0) ? Double.NaN : power.watts() * seconds;
            intervals.addLast(new Interval(monotonicNanos, seconds, joules, Double.isNaN(joules) ? null : source, delta));
        }
        long from = monotonicNanos - window.toNanos();
        while (!intervals.isEmpty() && (intervals.peekFirst().endNanos() - from <= 0 || intervals.size() > MAX_INTERVALS)) {
            intervals.removeFirst();
        }
        if (!sampled || monotonicNanos > lastNanos) {
            sampled = true;
            lastNanos = monotonicNanos;
            lastTokens = now;
        }
    }

    private static Map<String, Long> bounded(Map<String, Long> tokens) {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, Long> e : tokens.entrySet()) {
            if (out.size() >= MAX_COUNTERS) {
                break;
            }
            if (e.getValue() != null && e.getValue() >= 0) {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    /** The window's figures, or null where they are unknown (see the class comment). */
    public synchronized Window current() {
        if (intervals.isEmpty()) {
            return null;
        }
        double seconds = 0;
        double joules = 0;
        Map<String, Long> byEngine = new TreeMap<>();
        for (Interval i : intervals) {
            if (Double.isNaN(i.joules())) {
                return null;
            }
            seconds += i.seconds();
            joules += i.joules();
            i.tokens().forEach((e, t) -> byEngine.merge(e, t, InputRange::saturatingAdd));
        }
        long all = 0;
        for (long t : byEngine.values()) {
            all = InputRange.saturatingAdd(all, t);
        }
        if (all == 0 || seconds <= 0) {
            return null;
        }
        List<Share> shares = new ArrayList<>();
        for (Map.Entry<String, Long> e : byEngine.entrySet()) {
            double share = joules * e.getValue() / all;
            shares.add(new Share(e.getKey(), e.getValue(), share, share / e.getValue(), share / seconds));
        }
        return new Window(intervals.peekLast().source(), seconds, joules, all, shares);
    }

    private synchronized String reason() {
        if (intervals.isEmpty()) {
            return "waiting for a second host sample";
        }
        for (Interval i : intervals) {
            if (Double.isNaN(i.joules())) {
                return "host power unknown in the window";
            }
        }
        return "no output token in the window";
    }

    /** The gauges of the current window (none where it is unknown). */
    public List<Point> points() {
        Window w = current();
        List<Point> out = new ArrayList<>();
        if (w != null) {
            for (Share s : w.engines()) {
                out.add(Point.of(EnergyMetrics.ENERGY_PER_OUTPUT_TOKEN, s.joulesPerToken(), w.source(), AttrKeys.ENGINE, s.engine()));
                out.add(Point.of(EnergyMetrics.ATTRIBUTED_POWER, s.watts(), w.source(), AttrKeys.ENGINE, s.engine()));
            }
        }
        return out;
    }

    /** The status part: the window and each engine's share, or {@code known: false} with why not. */
    public Map<String, Object> status() {
        Window w = current();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("window_seconds", window.toSeconds());
        m.put("known", w != null);
        if (w == null) {
            m.put("reason", reason());
            return m;
        }
        m.put("power_source", w.source().value());
        m.put("covered_seconds", w.seconds());
        m.put("host_joules", w.hostJoules());
        m.put("output_tokens", w.tokens());
        List<Map<String, Object>> engines = new ArrayList<>();
        for (Share s : w.engines()) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("engine", s.engine());
            e.put("output_tokens", s.tokens());
            e.put("joules", s.joules());
            e.put("joules_per_token", s.joulesPerToken());
            e.put("watts", s.watts());
            engines.add(e);
        }
        m.put("engines", engines);
        return m;
    }
}
