package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.HostPower;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PowerSource;
import io.tailwatch.metrics.EnergyMetrics;
import io.tailwatch.metrics.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A fake host power source feeds the window; every expected figure is worked out by hand in the comments. */
class EnergyPerTokenTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static Instant at(int seconds) {
        return T0.plusSeconds(seconds);
    }

    private static HostPower rails(double watts) {
        return new HostPower(watts, PowerSource.RAILS);
    }

    private static EnergyPerToken.Share share(EnergyPerToken.Window w, String engine) {
        return w.engines().stream().filter(s -> s.engine().equals(engine)).findFirst().orElseThrow();
    }

    @Test
    void thirtyWattsOverTenSecondsSharedByTokens() {
        EnergyPerToken e = new EnergyPerToken();
        e.sample(at(0), rails(30), Map.of("a", 1_000L, "b", 50L));
        e.sample(at(10), rails(30), Map.of("a", 1_300L, "b", 150L));
        EnergyPerToken.Window w = e.current();
        // 30 W x 10 s = 300 J; a made 300 of the 400 tokens: 225 J, 0.75 J/token, 22.5 W; b 75 J, 7.5 W.
        assertThat(w.hostJoules()).isCloseTo(300, within(1e-9));
        assertThat(w.tokens()).isEqualTo(400);
        assertThat(w.source()).isEqualTo(PowerSource.RAILS);
        assertThat(share(w, "a").joules()).isCloseTo(225, within(1e-9));
        assertThat(share(w, "a").joulesPerToken()).isCloseTo(0.75, within(1e-12));
        assertThat(share(w, "a").watts()).isCloseTo(22.5, within(1e-9));
        assertThat(share(w, "b").joules()).isCloseTo(75, within(1e-9));
        assertThat(share(w, "b").watts()).isCloseTo(7.5, within(1e-9));
        List<Point> points = e.points();
        assertThat(points).filteredOn(p -> p.metric() == EnergyMetrics.ENERGY_PER_OUTPUT_TOKEN
                && "a".equals(p.attributes().get(AttrKeys.ENGINE))).singleElement()
                .satisfies(p -> {
                    assertThat(p.value()).isCloseTo(0.75, within(1e-12));
                    assertThat(p.attributes()).containsEntry(AttrKeys.POWER_SOURCE, "rails");
                });
    }

    @Test
    void intervalsAndTheWindowAreTimedByTheMonotonicClock() {
        EnergyPerToken e = new EnergyPerToken();
        long s = 1_000_000_000L;
        e.sample(5 * s, rails(30), Map.of("a", 1_000L));
        // 10 s pass (whatever the wall clock did meanwhile): 300 J over those 10 s.
        e.sample(15 * s, rails(30), Map.of("a", 1_400L));
        EnergyPerToken.Window w = e.current();
        assertThat(w.seconds()).isCloseTo(10, within(1e-9));
        assertThat(w.hostJoules()).isCloseTo(300, within(1e-9));
        assertThat(share(w, "a").joulesPerToken()).isCloseTo(0.75, within(1e-12));
        // Another 10 s: the interval counts.
        e.sample(25 * s, rails(30), Map.of("a", 1_800L));
        w = e.current();
        assertThat(w.seconds()).isCloseTo(20, within(1e-9));
        assertThat(w.hostJoules()).isCloseTo(600, within(1e-9));
        assertThat(w.tokens()).isEqualTo(800);
        // 10 s more: the window holds all three; a minute later it holds only that last minute.
        e.sample(35 * s, rails(30), Map.of("a", 2_200L));
        assertThat(e.current().seconds()).isCloseTo(30, within(1e-9));
        e.sample(95 * s, rails(30), Map.of("a", 2_400L));
        w = e.current();
        assertThat(w.seconds()).isCloseTo(60, within(1e-9));
        assertThat(w.tokens()).isEqualTo(200);
    }

    @Test
    void intervalsAddUpAcrossTheWindow() {
        EnergyPerToken e = new EnergyPerToken();
        e.sample(at(0), null, Map.of("a", 0L));
        e.sample(at(10), rails(30), Map.of("a", 100L));
        e.sample(at(20), rails(10), Map.of("a", 100L, "b", 100L));
        // 300 J + 100 J = 400 J over 200 tokens: 2 J/token; a's 200 J over 20 s = 10 W.
        EnergyPerToken.Window w = e.current();
        assertThat(w.seconds()).isCloseTo(20, within(1e-9));
        assertThat(share(w, "a").joulesPerToken()).isCloseTo(2.0, within(1e-12));
        assertThat(share(w, "a").watts()).isCloseTo(10.0, within(1e-9));
        assertThat(share(w, "b").joules()).isCloseTo(200, within(1e-9));
    }

    @Test
    void oldIntervalsLeaveTheWindow() {
        EnergyPerToken e = new EnergyPerToken(Duration.ofSeconds(20));
        e.sample(at(0), rails(50), Map.of("a", 0L));
        e.sample(at(10), rails(50), Map.of("a", 50L));
        e.sample(at(20), rails(10), Map.of("a", 60L));
        e.sample(at(30), rails(10), Map.of("a", 70L));
        // The window is (10 s, 30 s]: 100 J + 100 J over 20 tokens = 10 J/token (with 0-10 s it would be 20.7).
        EnergyPerToken.Window w = e.current();
        assertThat(w.hostJoules()).isCloseTo(200, within(1e-9));
        assertThat(share(w, "a").joulesPerToken()).isCloseTo(10.0, within(1e-12));
    }

    @Test
    void unknownPowerInTheWindowIsAbsentUntilItLeaves() {
        EnergyPerToken e = new EnergyPerToken(Duration.ofSeconds(20));
        e.sample(at(0), rails(30), Map.of("a", 0L));
        e.sample(at(10), null, Map.of("a", 10L));
        e.sample(at(20), rails(30), Map.of("a", 20L));
        assertThat(e.current()).isNull();
        assertThat(e.points()).isEmpty();
        assertThat(e.status()).containsEntry("known", false).containsEntry("reason", "host power unknown in the window");
        e.sample(at(30), rails(30), Map.of("a", 30L));
        // (10 s, 30 s]: 600 J over 20 tokens.
        assertThat(share(e.current(), "a").joulesPerToken()).isCloseTo(30.0, within(1e-12));
    }

    @Test
    void powerNeverKnownIsNeverAFigure() {
        EnergyPerToken e = new EnergyPerToken();
        for (int i = 0; i <= 5; i++) {
            e.sample(at(i * 10), null, Map.of("a", i * 100L));
        }
        assertThat(e.current()).isNull();
        assertThat(e.points()).isEmpty();
    }

    @Test
    void aChangeOfSourceStartsTheWindowAgain() {
        EnergyPerToken e = new EnergyPerToken();
        e.sample(at(0), rails(30), Map.of("a", 0L));
        e.sample(at(10), rails(30), Map.of("a", 10L));
        e.sample(at(20), new HostPower(50, PowerSource.SYSTEM), Map.of("a", 20L));
        // Only the system interval: 500 J over 10 tokens.
        EnergyPerToken.Window w = e.current();
        assertThat(w.source()).isEqualTo(PowerSource.SYSTEM);
        assertThat(share(w, "a").joulesPerToken()).isCloseTo(50.0, within(1e-12));
        assertThat(e.points()).allSatisfy(p -> assertThat(p.attributes()).containsEntry(AttrKeys.POWER_SOURCE, "system"));
    }

    @Test
    void noTokenIsNoFigureAndACountThatWentBackCountsAsNew() {
        EnergyPerToken e = new EnergyPerToken();
        assertThat(e.status()).containsEntry("reason", "waiting for a second host sample");
        e.sample(at(0), rails(20), Map.of("a", 500L));
        e.sample(at(10), rails(20), Map.of("a", 500L));
        assertThat(e.current()).isNull();
        assertThat(e.status()).containsEntry("reason", "no output token in the window");
        e.sample(at(20), rails(20), Map.of("a", 40L));
        // 400 J over the 40 tokens of the restarted count.
        assertThat(share(e.current(), "a").joulesPerToken()).isCloseTo(10.0, within(1e-12));
        assertThat(e.status()).containsEntry("known", true).containsEntry("power_source", "rails")
                .containsEntry("output_tokens", 40L);
    }

    @Test
    void anEnginesCountersAreTakenOneByOneSoOneStartingAgainAddsOnlyItsOwnTokens() {
        EnergyPerToken e = new EnergyPerToken();
        String probes = "a" + EnergyPerToken.COUNTER + "probes";
        String proxy = "a" + EnergyPerToken.COUNTER + "proxy";
        e.sample(at(0), rails(20), Map.of(probes, 300L, proxy, 100_000L, "b", 0L));
        // The probes were configured anew (their count went from 300 to 30) while the proxy went on (+70)
        // and b made 100: a made 30 + 70 = 100 tokens in the interval, not 30 + 100,070.
        e.sample(at(10), rails(20), Map.of(probes, 30L, proxy, 100_070L, "b", 100L));
        EnergyPerToken.Window w = e.current();
        assertThat(w.tokens()).isEqualTo(200);
        assertThat(w.engines()).extracting(EnergyPerToken.Share::engine).containsExactly("a", "b");
        // 20 W x 10 s = 200 J over 200 tokens: 1 J a token, 100 J and 10 W each
        assertThat(share(w, "a").tokens()).isEqualTo(100);
        assertThat(share(w, "a").joulesPerToken()).isCloseTo(1.0, within(1e-12));
        assertThat(share(w, "b").watts()).isCloseTo(10.0, within(1e-9));
    }
}
