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

    /** The first step (the single-request baseline when levels start at 1), or null. */
    public LevelResult first() {
        return levels.isEmpty() ? null : levels.get(0);
    }
}
