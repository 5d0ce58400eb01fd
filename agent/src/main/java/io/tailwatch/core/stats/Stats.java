package io.tailwatch.core.stats;

import java.util.Arrays;
import java.util.List;

/**
 * Descriptive statistics for benchmark and ladder samples. Percentiles use the nearest-rank method
 * (the smallest sample with at least p % of the samples at or below it), so every reported
 * percentile is a latency that was actually observed.
 */
public final class Stats {
    private Stats() {
    }

    /** Nearest-rank percentile, {@code p} in (0, 100]. NaN for no samples. */
    public static double percentile(double[] samples, double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100], was " + p);
        }
        if (samples.length == 0) {
            return Double.NaN;
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(1, rank) - 1];
    }

    /** Median as the nearest-rank 50th percentile for odd counts and the mean of the middle two for even counts. */
    public static double median(double[] samples) {
        if (samples.length == 0) {
            return Double.NaN;
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }

    public static double mean(double[] samples) {
        if (samples.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (double v : samples) {
            sum += v;
        }
        return sum / samples.length;
    }

    /** Sample standard deviation with Bessel's correction (N-1); NaN for fewer than two samples. */
    public static double sampleStdDev(double[] samples) {
        if (samples.length < 2) {
            return Double.NaN;
        }
        double m = mean(samples);
        double ss = 0;
        for (double v : samples) {
            ss += (v - m) * (v - m);
        }
        return Math.sqrt(ss / (samples.length - 1));
    }

    /** Coefficient of variation (sample stddev / mean) as a ratio; NaN when undefined. */
    public static double coefficientOfVariation(double[] samples) {
        double m = mean(samples);
        double sd = sampleStdDev(samples);
        if (Double.isNaN(sd) || m == 0) {
            return Double.NaN;
        }
        return sd / Math.abs(m);
    }

    public static double min(double[] samples) {
        return samples.length == 0 ? Double.NaN : Arrays.stream(samples).min().getAsDouble();
    }

    public static double max(double[] samples) {
        return samples.length == 0 ? Double.NaN : Arrays.stream(samples).max().getAsDouble();
    }

    /** Run-to-run stability class from the coefficient of variation. */
    public enum Stability {
        /** CV under 5 %. */
        STABLE,
        /** CV under 10 %. */
        VARIABLE,
        /** CV 10 % or more. */
        UNSTABLE,
        /** Fewer than two samples: no spread to judge. */
        UNKNOWN;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public static Stability stability(double cv) {
        if (Double.isNaN(cv)) {
            return Stability.UNKNOWN;
        }
        if (cv < 0.05) {
            return Stability.STABLE;
        }
        if (cv < 0.10) {
            return Stability.VARIABLE;
        }
        return Stability.UNSTABLE;
    }

    /**
     * Thermal drift: the runs' throughput fell monotonically (each run strictly below the one before)
     * and the last is at least {@code minDrop} (0.05 = 5 %) below the first. Needs at least two runs.
     *
     * @return the relative drop (0.07 = 7 %) when drift is present, else NaN
     */
    public static double thermalDrift(double[] throughputInRunOrder, double minDrop) {
        if (throughputInRunOrder.length < 2) {
            return Double.NaN;
        }
        for (int i = 1; i < throughputInRunOrder.length; i++) {
            if (!(throughputInRunOrder[i] < throughputInRunOrder[i - 1])) {
                return Double.NaN;
            }
        }
        double first = throughputInRunOrder[0];
        double last = throughputInRunOrder[throughputInRunOrder.length - 1];
        if (first <= 0) {
            return Double.NaN;
        }
        double drop = (first - last) / first;
        return drop >= minDrop ? drop : Double.NaN;
    }

    public static double[] toArray(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** Summary of one sample set; every field NaN when {@code count} is 0. */
    public record Summary(int count, double min, double mean, double p50, double p95, double p99, double max) {
        public static Summary of(double[] samples) {
            return new Summary(samples.length, Stats.min(samples), Stats.mean(samples), percentile(samples, 50),
                    percentile(samples, 95), percentile(samples, 99), Stats.max(samples));
        }

        public static Summary of(List<Double> samples) {
            return of(toArray(samples));
        }
    }
}
