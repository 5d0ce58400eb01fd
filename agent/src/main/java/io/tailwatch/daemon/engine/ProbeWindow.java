package io.tailwatch.daemon.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * Rolling window of probe outcomes for one engine/model/scenario, bounded both in age and in
 * count. Percentiles are nearest-rank over the successful probes in the window: the smallest value
 * with at least p % of the samples at or below it. Thread-safe.
 */
public final class ProbeWindow {
    public static final int DEFAULT_MAX_SAMPLES = 1000;

    private record Sample(Instant at, boolean success, double e2e, double ttft) {
    }

    /** What the window holds right now. Percentiles are null when there is no successful sample. */
    public record Stats(int samples, int failures, double errorRatio, Double e2eP50, Double e2eP95, Double e2eP99,
                        Double ttftP50, Double ttftP95, Double ttftP99) {
    }

    private final Duration maxAge;
    private final int maxSamples;
    private final Deque<Sample> samples = new ArrayDeque<>();
    private volatile Instant lastAdded;

    public ProbeWindow(Duration maxAge, int maxSamples) {
        if (maxSamples < 1 || maxAge.isNegative() || maxAge.isZero()) {
            throw new IllegalArgumentException("window needs a positive age and count");
        }
        this.maxAge = maxAge;
        this.maxSamples = maxSamples;
    }

    /** Adds an outcome; {@code ttft} may be NaN when the probe saw no content. */
    public synchronized void add(Instant at, boolean success, double e2e, double ttft) {
        samples.addLast(new Sample(at, success, e2e, ttft));
        lastAdded = at;
        while (samples.size() > maxSamples) {
            samples.removeFirst();
        }
    }

    /** When the last outcome was added, or null before the first. */
    public Instant lastAdded() {
        return lastAdded;
    }

    public synchronized Stats stats(Instant now) {
        Instant oldest = now.minus(maxAge);
        while (!samples.isEmpty() && samples.peekFirst().at().isBefore(oldest)) {
            samples.removeFirst();
        }
        int n = samples.size();
        double[] e2e = new double[n];
        double[] ttft = new double[n];
        int ok = 0;
        int okTtft = 0;
        for (Sample s : samples) {
            if (s.success()) {
                e2e[ok++] = s.e2e();
                if (!Double.isNaN(s.ttft())) {
                    ttft[okTtft++] = s.ttft();
                }
            }
        }
        double[] e = Arrays.copyOf(e2e, ok);
        double[] t = Arrays.copyOf(ttft, okTtft);
        Arrays.sort(e);
        Arrays.sort(t);
        int failures = n - ok;
        return new Stats(n, failures, n == 0 ? 0.0 : (double) failures / n,
                nearestRank(e, 50), nearestRank(e, 95), nearestRank(e, 99),
                nearestRank(t, 50), nearestRank(t, 95), nearestRank(t, 99));
    }

    /** Nearest-rank percentile of sorted values: the value at rank ceil(p/100 x n), or null when empty. */
    public static Double nearestRank(double[] sorted, int p) {
        if (sorted.length == 0) {
            return null;
        }
        // Integer arithmetic: 0.95 x 20 in floating point is not exactly 19.
        int rank = (int) ((p * (long) sorted.length + 99) / 100);
        return sorted[Math.max(1, Math.min(rank, sorted.length)) - 1];
    }
}
