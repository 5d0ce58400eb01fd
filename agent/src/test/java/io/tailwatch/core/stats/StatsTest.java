package io.tailwatch.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class StatsTest {
    /** The five serial N=1 latencies of the measured gemma case, in call order. */
    private static final double[] N1 = {3.67, 3.41, 3.42, 3.60, 3.47};

    @Test
    void source_document_n1_latencies() {
        Stats.Summary s = Stats.Summary.of(N1);
        assertThat(s.count()).isEqualTo(5);
        assertThat(s.mean()).isCloseTo(3.51, within(0.005));
        assertThat(s.p50()).isEqualTo(3.47);
        assertThat(s.p95()).isEqualTo(3.67);
        assertThat(s.p99()).isEqualTo(3.67);
        assertThat(s.min()).isEqualTo(3.41);
        assertThat(s.max()).isEqualTo(3.67);
    }

    @Test
    void nearest_rank_picks_observed_values() {
        double[] ten = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
        assertThat(Stats.percentile(ten, 50)).isEqualTo(5);
        assertThat(Stats.percentile(ten, 90)).isEqualTo(9);
        assertThat(Stats.percentile(ten, 95)).isEqualTo(10);
        assertThat(Stats.percentile(ten, 10)).isEqualTo(1);
        assertThat(Stats.percentile(new double[]{42}, 99)).isEqualTo(42);
        assertThat(Stats.percentile(new double[0], 50)).isNaN();
    }

    @Test
    void sample_stddev_uses_n_minus_one() {
        double[] v = {2, 4, 4, 4, 5, 5, 7, 9};
        // population stddev is 2; with Bessel's correction sqrt(32/7)
        assertThat(Stats.sampleStdDev(v)).isCloseTo(Math.sqrt(32.0 / 7), within(1e-12));
        assertThat(Stats.sampleStdDev(new double[]{5})).isNaN();
    }

    @Test
    void median_of_even_count_is_mean_of_middle_pair() {
        assertThat(Stats.median(new double[]{30, 10, 20})).isEqualTo(20);
        assertThat(Stats.median(new double[]{40, 10, 30, 20})).isEqualTo(25);
    }

    @Test
    void stability_classes() {
        assertThat(Stats.stability(Stats.coefficientOfVariation(new double[]{100, 101, 99}))).isEqualTo(Stats.Stability.STABLE);
        assertThat(Stats.stability(0.0499)).isEqualTo(Stats.Stability.STABLE);
        assertThat(Stats.stability(0.05)).isEqualTo(Stats.Stability.VARIABLE);
        assertThat(Stats.stability(0.0999)).isEqualTo(Stats.Stability.VARIABLE);
        assertThat(Stats.stability(0.10)).isEqualTo(Stats.Stability.UNSTABLE);
        assertThat(Stats.stability(Double.NaN)).isEqualTo(Stats.Stability.UNKNOWN);
    }

    @Test
    void thermal_drift_needs_a_monotonic_fall_of_five_percent() {
        assertThat(Stats.thermalDrift(new double[]{40, 39, 37.9}, 0.05)).isCloseTo(0.0525, within(1e-9));
        // falls but only 4 %
        assertThat(Stats.thermalDrift(new double[]{40, 39, 38.4}, 0.05)).isNaN();
        // 10 % lower at the end but not monotonic
        assertThat(Stats.thermalDrift(new double[]{40, 41, 36}, 0.05)).isNaN();
        // flat step is not a decrease
        assertThat(Stats.thermalDrift(new double[]{40, 40, 30}, 0.05)).isNaN();
        assertThat(Stats.thermalDrift(new double[]{40}, 0.05)).isNaN();
    }
}
