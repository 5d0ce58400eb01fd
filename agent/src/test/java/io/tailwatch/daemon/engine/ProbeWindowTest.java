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
}
