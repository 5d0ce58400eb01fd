package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.ProbeResult;
import java.time.Instant;
import java.util.List;

/**
 * A finished or partial ladder run.
 *
 * @param stop     the first rule (or limit) that stopped the ladder, null when every step ran clean
 * @param tripped  every rule that tripped (more than one only with --continue)
 * @param finished false while the run is still going (a progress snapshot)
 */
public record LadderResult(LadderOptions options, Instant start, Instant end, HostFigures preflight,
                           ProbeResult warmup, List<LevelResult> levels, StopRules.Stop stop,
                           List<StopRules.Stop> tripped, boolean interrupted, boolean finished) {
    public LadderResult {
        levels = List.copyOf(levels);
        tripped = List.copyOf(tripped);
    }

    /** The first step (the stop rules' p95 reference), or null. */
    public LevelResult first() {
        return levels.isEmpty() ? null : levels.get(0);
    }

    /**
     * The single-request baseline: the concurrency-1 step when it ran clean, or null. Clean means
     * complete (not cut short by an interrupt or the max duration), at least one request, and every
     * request successful, so its latency figures describe whole, successful requests only. This is the
     * one criterion for both uses (docs/capacity.md, "Local history"): the {@code baseline} record kept
     * in the history and the p95 handed to the alert rules with --save-baseline.
     */
    public LevelResult baselineStep() {
        for (LevelResult l : levels) {
            if (l.concurrency() == 1 && l.complete() && l.requests() > 0 && l.errors() == 0) {
                return l;
            }
        }
        return null;
    }

    /**
     * The engine never answered successfully: the warm-up failed and every request of every step failed
     * (the command then exits 1 naming the warm-up's error).
     */
    public boolean neverAnswered() {
        return warmup != null && !warmup.success() && levels.stream().allMatch(l -> l.errors() == l.requests());
    }
}
