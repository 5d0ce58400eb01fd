package io.tailwatch.tools.capacity;

import java.util.Locale;
import java.util.Optional;

/**
 * The rules checked after every ladder step, in this order: error rate above zero, p95 at or above
 * {@code p95Ratio} times the first step's p95, engine health check failing, swap grown by more than
 * {@code swapGrowthBytes} during the step, memory pressure critical after the step.
 */
public record StopRules(double p95Ratio, double maxErrorRate, double swapGrowthBytes) {
    public static final double GIB = 1024.0 * 1024 * 1024;
    public static final StopRules DEFAULTS = new StopRules(3.0, 0.0, GIB);

    public static final String ERROR_RATE = "error_rate";
    public static final String P95_RATIO = "p95_ratio";
    public static final String HEALTH = "health";
    public static final String SWAP_GROWTH = "swap_growth";
    public static final String MEMORY_PRESSURE = "memory_pressure";
    /** Not rules but reasons a run ends early; reported the same way. */
    public static final String MAX_DURATION = "max_duration";
    public static final String MAX_REQUESTS = "max_requests";
    public static final String INTERRUPTED = "interrupted";

    public StopRules {
        if (!(p95Ratio > 1)) {
            throw new IllegalArgumentException("p95 ratio must be > 1, was " + p95Ratio);
        }
        if (!(maxErrorRate >= 0 && maxErrorRate < 1)) {
            throw new IllegalArgumentException("max error rate must be in [0, 1), was " + maxErrorRate);
        }
        if (!(swapGrowthBytes > 0)) {
            throw new IllegalArgumentException("swap growth limit must be > 0, was " + swapGrowthBytes);
        }
    }

    /** Why the ladder stopped: which rule, at which step, with the measured value and the threshold. */
    public record Stop(int level, String rule, double value, double threshold, String detail) {
    }

    /**
     * Checks one finished step. {@code baselineP95} is the first step's p95 (NaN when it had no
     * successful request; the ratio rule is then skipped).
     */
    public Optional<Stop> check(LevelResult level, double baselineP95) {
        int c = level.concurrency();
        double errorRate = level.errorRate();
        if (!Double.isNaN(errorRate) && errorRate > maxErrorRate) {
            return Optional.of(new Stop(c, ERROR_RATE, errorRate, maxErrorRate, String.format(Locale.ROOT,
                    "%d of %d requests failed (error rate %.1f %%)", level.errors(), level.requests(), errorRate * 100)));
        }
        double p95 = level.e2e().p95();
        if (!Double.isNaN(baselineP95) && baselineP95 > 0 && !Double.isNaN(p95)) {
            double ratio = p95 / baselineP95;
            if (ratio >= p95Ratio) {
                return Optional.of(new Stop(c, P95_RATIO, round2(ratio), p95Ratio, String.format(Locale.ROOT,
                        "p95 %.2f s is %.2fx the first step's p95 %.2f s (limit %.1fx)", p95, ratio, baselineP95, p95Ratio)));
            }
        }
        if (level.healthProblem() != null) {
            return Optional.of(new Stop(c, HEALTH, 1, 0, "health check failing: " + level.healthProblem()));
        }
        Double grew = level.swapGrowthBytes();
        if (grew != null && grew > swapGrowthBytes) {
            return Optional.of(new Stop(c, SWAP_GROWTH, grew, swapGrowthBytes, String.format(Locale.ROOT,
                    "swap grew by %.2f GiB during the step (limit %.2f GiB)", grew / GIB, swapGrowthBytes / GIB)));
        }
        HostFigures after = level.after();
        if (after != null && after.pressureLevel() != null && after.pressureLevel() >= 2) {
            return Optional.of(new Stop(c, MEMORY_PRESSURE, after.pressureLevel(), 2,
                    "memory pressure is critical after the step"));
        }
        return Optional.empty();
    }

    static double round2(double v) {
        return Math.round(v * 100.0) / 100.0;
    }
}
