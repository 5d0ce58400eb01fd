package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ProbeWindowTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void nearestRankPercentiles() {
        double[] v = new double[20];
        for (int i = 0; i < 20; i++) {
            v[i] = i + 1;
        }
        assertThat(ProbeWindow.nearestRank(v, 50)).isEqualTo(10.0);
        assertThat(ProbeWindow.nearestRank(v, 95)).isEqualTo(19.0);
        assertThat(ProbeWindow.nearestRank(v, 99)).isEqualTo(20.0);
        assertThat(ProbeWindow.nearestRank(new double[] {3.41, 3.47, 3.52, 3.58, 3.67}, 95)).isEqualTo(3.67);
        assertThat(ProbeWindow.nearestRank(new double[] {7}, 50)).isEqualTo(7.0);
        assertThat(ProbeWindow.nearestRank(new double[0], 50)).isNull();
    }

    @Test
    void failuresCountInTheRatioNotInThePercentiles() {
        ProbeWindow w = new ProbeWindow(Duration.ofMinutes(10), 100);
        w.add(T0, true, 1.0, 0.1);
        w.add(T0, true, 2.0, 0.2);
        w.add(T0, false, 30.0, Double.NaN);
        w.add(T0, true, 3.0, Double.NaN);
        ProbeWindow.Stats s = w.stats(T0);
        assertThat(s.samples()).isEqualTo(4);
        assertThat(s.errorRatio()).isEqualTo(0.25);
        assertThat(s.e2eP99()).isEqualTo(3.0);
        assertThat(s.ttftP99()).isEqualTo(0.2);
    }

    @Test
    void boundedByAgeAndCount() {
        ProbeWindow w = new ProbeWindow(Duration.ofMinutes(10), 3);
        w.add(T0, true, 100, 1);
        w.add(T0.plusSeconds(60), true, 1, 1);
        w.add(T0.plusSeconds(120), true, 2, 1);
        w.add(T0.plusSeconds(180), true, 3, 1);
        assertThat(w.stats(T0.plusSeconds(180)).samples()).isEqualTo(3);
        assertThat(w.stats(T0.plusSeconds(180)).e2eP99()).isEqualTo(3.0);
        ProbeWindow.Stats later = w.stats(T0.plusSeconds(60 + 600 + 61));
        assertThat(later.samples()).isEqualTo(1);
        assertThat(w.stats(T0.plusSeconds(3600)).samples()).isZero();
        assertThat(w.stats(T0.plusSeconds(3600)).e2eP50()).isNull();
    }

    /**
     * The simulator's stall schedule (every 20th probe stalls) against the window's nearest-rank
     * percentiles: with 20 probes and more, from the first stall on, p95 is a fast probe and p99 a
     * stalled one, for as long as at most one in 20 stalls; 19 fast probes have no stall to show.
     */
    @Test
    void oneStallInTwentyIsAboveP95AndIsP99() {
        double fast = 0.012;
        double stalled = 0.514;
        ProbeWindow w = new ProbeWindow(Duration.ofMinutes(10), ProbeWindow.DEFAULT_MAX_SAMPLES);
        for (int probe = 1; probe <= 200; probe++) {
            w.add(T0.plusSeconds(probe), true, probe % 20 == 0 ? stalled : fast, 0.005);
            ProbeWindow.Stats s = w.stats(T0.plusSeconds(probe));
            assertThat(s.samples()).isEqualTo(probe);
            if (probe < 20) {
                assertThat(s.e2eP99()).as("p99 of %d fast probes", probe).isEqualTo(fast);
            } else {
                assertThat(s.e2eP95()).as("p95 after %d probes", probe).isEqualTo(fast);
                assertThat(s.e2eP99()).as("p99 after %d probes", probe).isEqualTo(stalled);
            }
        }
        // Two stalls among 20 (one in 10) is more than p95 hides: the spread is gone.
        ProbeWindow dense = new ProbeWindow(Duration.ofMinutes(10), 20);
        for (int probe = 1; probe <= 20; probe++) {
            dense.add(T0.plusSeconds(probe), true, probe % 10 == 0 ? stalled : fast, 0.005);
        }
        assertThat(dense.stats(T0.plusSeconds(20)).e2eP95()).isEqualTo(stalled);
    }
}
