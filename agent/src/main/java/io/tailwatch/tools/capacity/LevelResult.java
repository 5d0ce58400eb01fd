package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.stats.Stats;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One ladder step: {@code planned} requests at exactly {@code concurrency} in flight. Latency and
 * TTFT figures describe the successful requests; errors are counted separately.
 *
 * @param complete false when the step was cut short (interrupt, max duration)
 * @param healthProblem the engine health check's complaint after the step, null when healthy or not checked
 */
public record LevelResult(int concurrency, int planned, List<ProbeResult> results, boolean complete, Instant start,
                          Instant end, HostFigures before, HostFigures after, String healthProblem) {

    public LevelResult {
        results = List.copyOf(results);
    }

    public int requests() {
        return results.size();
    }

    public int errors() {
        return (int) results.stream().filter(r -> !r.success()).count();
    }

    /** Errors / requests; NaN when nothing ran. */
    public double errorRate() {
        return results.isEmpty() ? Double.NaN : (double) errors() / results.size();
    }

    public Stats.Summary e2e() {
        return Stats.Summary.of(results.stream().filter(ProbeResult::success).mapToDouble(ProbeResult::e2eSeconds).toArray());
    }

    public Stats.Summary ttft() {
        return Stats.Summary.of(results.stream().filter(ProbeResult::success).map(ProbeResult::ttftSeconds)
                .filter(v -> v != null).mapToDouble(Double::doubleValue).toArray());
    }

    /** Decode tokens per second of each successful request. */
    public Stats.Summary decodeTokensPerSecond() {
        return Stats.Summary.of(results.stream().filter(ProbeResult::success).map(ProbeResult::decodeTokensPerSecond)
                .filter(v -> v != null && v > 0).mapToDouble(Double::doubleValue).toArray());
    }

    public long outputTokens() {
        return results.stream().filter(ProbeResult::success).map(ProbeResult::outputTokens).filter(v -> v != null)
                .mapToLong(Long::longValue).sum();
    }

    /** Aggregate output tokens per second over the step's wall time; NaN when unknown. */
    public double outputTokensPerSecond() {
        if (start == null || end == null) {
            return Double.NaN;
        }
        double seconds = Duration.between(start, end).toNanos() / 1e9;
        long tokens = outputTokens();
        if (seconds <= 0 || tokens == 0) {
            return Double.NaN;
        }
        return tokens / seconds;
    }

    public Double swapGrowthBytes() {
        if (before == null || after == null || before.swapUsedBytes() == null || after.swapUsedBytes() == null) {
            return null;
        }
        return after.swapUsedBytes() - before.swapUsedBytes();
    }
}
