package io.tailwatch.core.config;

import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.units.Units;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How many probes a scenario's rolling window must be able to hold for the enabled rules to mean
 * anything, and whether a window and interval can. Probes are scheduled one interval apart with up to
 * {@link #JITTER} of jitter, so a window of W at interval I is sure to hold floor(W / (I x 1.1)) probes.
 */
public final class WindowRequirements {
    /** Largest share a probe may come late (the monitor's jitter). */
    public static final double JITTER = 0.10;
    /** The shortest window a scenario gets when it sets none. */
    public static final Duration MIN_DEFAULT_WINDOW = Duration.ofMinutes(10);

    /** One rule (or setting) that needs {@code samples} probes in the window; {@code key} is its config path. */
    public record Requirement(String key, int samples) {
    }

    private final List<Requirement> requirements;

    public WindowRequirements(List<Requirement> requirements) {
        this.requirements = List.copyOf(requirements);
    }

    /** The requirements of the enabled rules: TailLatencySpread's sample floor, LatencyOverBaseline's baseline learning, ProbeErrors' failure floor. */
    public static WindowRequirements of(RulesConfig rules, AlertsConfig alerts) {
        List<Requirement> out = new ArrayList<>();
        if (enabled(rules, Rules.TAIL_LATENCY_SPREAD.name())) {
            out.add(new Requirement("rules.TailLatencySpread (" + Rules.MIN_SPREAD_SAMPLES + " probes)", Rules.MIN_SPREAD_SAMPLES));
        }
        if (enabled(rules, Rules.LATENCY_OVER_BASELINE.name())) {
            out.add(new Requirement("alerts.baseline.min_samples (" + alerts.baselineMinSamples() + " probes, for LatencyOverBaseline)",
                    alerts.baselineMinSamples()));
        }
        if (enabled(rules, Rules.PROBE_ERRORS.name())) {
            out.add(new Requirement("rules.ProbeErrors (" + Rules.PROBE_ERRORS_MIN_FAILURES + " failed probes)",
                    Rules.PROBE_ERRORS_MIN_FAILURES));
        }
        return new WindowRequirements(out);
    }

    /** With the built-in rules and baseline settings. */
    public static WindowRequirements defaults() {
        return new WindowRequirements(List.of(new Requirement("rules.TailLatencySpread", Rules.MIN_SPREAD_SAMPLES),
                new Requirement("alerts.baseline.min_samples", 20)));
    }

    public List<Requirement> list() {
        return requirements;
    }

    public int maxSamples() {
        return requirements.stream().mapToInt(Requirement::samples).max().orElse(0);
    }

    /** Probes a window of {@code window} is sure to hold at {@code interval}. */
    public static long guaranteed(Duration window, Duration interval) {
        return (long) Math.floor(window.toMillis() / (interval.toMillis() * (1 + JITTER)));
    }

    /** The shortest whole-minute window, at least {@link #MIN_DEFAULT_WINDOW}, that holds {@code samples} probes at {@code interval}. */
    public static Duration window(Duration interval, int samples) {
        long ms = (long) Math.ceil(samples * interval.toMillis() * (1 + JITTER));
        long minutes = Math.max(MIN_DEFAULT_WINDOW.toMinutes(), (ms + 59_999) / 60_000);
        Duration w = Duration.ofMinutes(minutes);
        while (guaranteed(w, interval) < samples) {
            w = w.plusMinutes(1);
        }
        return w;
    }

    /** The window a scenario gets when it sets none. */
    public Duration defaultWindow(Duration interval) {
        return window(interval, maxSamples());
    }

    /** A problem message when the window cannot hold what a rule needs, else null. */
    public String check(Duration window, Duration interval) {
        long holds = guaranteed(window, interval);
        List<String> unmet = new ArrayList<>();
        int need = 0;
        for (Requirement r : requirements) {
            if (holds < r.samples()) {
                unmet.add(r.key());
                need = Math.max(need, r.samples());
            }
        }
        if (unmet.isEmpty()) {
            return null;
        }
        long maxIntervalSeconds = (long) Math.floor(window.toMillis() / ((1 + JITTER) * need) / 1000);
        return Units.format(window) + " holds only " + holds + " probes at interval " + Units.format(interval)
                + " (a probe may come up to 10 % late), but " + String.join(" and ", unmet) + " need " + need
                + ": set window to at least " + Units.format(window(interval, need))
                + (maxIntervalSeconds >= 1 ? " or interval to at most " + maxIntervalSeconds + "s" : "")
                + " (or disable the rule)";
    }

    private static boolean enabled(RulesConfig rules, String name) {
        RulesConfig.RuleSettings s = rules.of(name);
        return s != null && s.enabled();
    }
}
