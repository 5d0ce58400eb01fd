package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.stats.Stats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BenchTest {
    static Bench.Options options(int runs, boolean force) {
        return new Bench.Options(runs, 64, 32, Duration.ofSeconds(10), Duration.ofSeconds(20),
                Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1), force);
    }

    static ProbeResult tps(double tps, double ttft) {
        return new ProbeResult(true, null, null, Instant.now(), "m", 0.01, ttft, ttft + 100 / tps, tps, 100L, 64L,
                "engine", null, null, tps, null, List.of());
    }

    /** Returns the warm-up then the given decode rates in order. */
    static FakeEngine engine(ProbeResult... results) {
        Deque<ProbeResult> q = new ArrayDeque<>(List.of(results));
        return req -> {
            assertThat(req.temperature()).isZero();
            return q.remove();
        };
    }

    static HostFigures figures(Double pressure, Double watts) {
        return new HostFigures(Instant.now(), 0.0, null, null, pressure, 0.0, null, null, watts);
    }

    @Test
    void median_headline_with_mean_stddev_and_stability() throws Exception {
        Bench b = new Bench(() -> figures(0.0, 50.0), options(3, false), Clock.systemUTC(), d -> { });
        Bench.EngineResult r = b.run(List.of(new Bench.Target("ollama", "ollama",
                engine(tps(10, 0.5), tps(40, 0.3), tps(42, 0.3), tps(41, 0.3)), "qwen3:14b", null))).get(0);
        assertThat(r.refused()).isEmpty();
        assertThat(r.warmup().decodeTokensPerSecond()).isEqualTo(10);
        assertThat(r.valid()).isEqualTo(3);
        assertThat(r.medianTps()).isEqualTo(41);
        assertThat(r.meanTps()).isEqualTo(41);
        assertThat(r.stddevTps()).isCloseTo(1.0, within(1e-12));
        assertThat(r.stability()).isEqualTo(Stats.Stability.STABLE);
        assertThat(Double.isNaN(r.drift())).isTrue();
        assertThat(r.medianWatts()).isEqualTo(50);
        assertThat(r.tpsPerWatt()).isCloseTo(0.82, within(1e-9));
        assertThat(r.medianTtft()).isEqualTo(0.3);
    }

    @Test
    void sanity_checks_and_thermal_drift() throws Exception {
        Bench b = new Bench(() -> figures(0.0, null), options(5, false), Clock.systemUTC(), d -> { });
        ProbeResult zero = tps(1, 0.2);
        zero = new ProbeResult(true, null, null, zero.startedAt(), "m", null, 0.2, 1.0, 0.0, 0L, 1L, "engine", null,
                null, null, null, List.of());
        Bench.EngineResult r = b.run(List.of(new Bench.Target("mlx", "openai",
                engine(tps(30, 0.2), tps(40, 0.2), tps(38, 61), zero, tps(36, 0.2), tps(600, 0.2)), null, null))).get(0);
        // the 0 tok/s run is dropped; the 600 tok/s run kept but flagged; TTFT 61 s flagged
        assertThat(r.valid()).isEqualTo(4);
        assertThat(r.warnings()).anySatisfy(w -> assertThat(w).startsWith("run 3: discarded"))
                .anySatisfy(w -> assertThat(w).startsWith("run 2: TTFT 61.0 s"))
                .anySatisfy(w -> assertThat(w).startsWith("run 5: decode 600 tok/s"));
        assertThat(r.stability()).isEqualTo(Stats.Stability.UNSTABLE);
        assertThat(Double.isNaN(r.medianWatts())).isTrue();

        Bench drift = new Bench(() -> figures(0.0, null), options(3, false), Clock.systemUTC(), d -> { });
        Bench.EngineResult d = drift.run(List.of(new Bench.Target("mlx", "openai",
                engine(tps(30, 0.2), tps(40, 0.2), tps(39, 0.2), tps(37.5, 0.2)), null, null))).get(0);
        assertThat(d.drift()).isCloseTo(0.0625, within(1e-9));
        assertThat(d.warnings()).anySatisfy(w -> assertThat(w).contains("thermal drift"));
    }

    @Test
    void cancel_drops_the_run_in_flight_and_starts_nothing_more() throws Exception {
        Bench[] bench = new Bench[1];
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger aborted = new AtomicInteger();
        AtomicInteger unloaded = new AtomicInteger();
        FakeEngine first = new FakeEngine() {
            @Override
            public ProbeResult probe(io.tailwatch.core.probe.ProbeRequest request) {
                int n = calls.incrementAndGet(); // 1 = warm-up, 2 = run 1, 3 = run 2 (Ctrl-C arrives during it)
                if (n == 3) {
                    bench[0].cancel();
                    return ScriptedEngine.failed("cut"); // what an aborted request looks like
                }
                return tps(40 + n, 0.2);
            }

            @Override
            public void abort() {
                aborted.incrementAndGet();
            }
        };
        FakeEngine second = req -> {
            throw new AssertionError("no engine starts after the interruption");
        };
        bench[0] = new Bench(() -> figures(0.0, null), options(5, false), Clock.systemUTC(), d -> { });
        List<Bench.EngineResult> results = bench[0].run(List.of(
                new Bench.Target("a", "openai", first, "m", unloaded::incrementAndGet),
                new Bench.Target("b", "openai", second, "m", unloaded::incrementAndGet)));
        assertThat(bench[0].cancelled()).isTrue();
        assertThat(aborted).hasValue(1);
        assertThat(calls).hasValue(3);
        assertThat(results).hasSize(1);
        Bench.EngineResult r = results.get(0);
        assertThat(r.runs()).hasSize(1); // run 2 was in flight: dropped, not counted as a failure
        assertThat(r.valid()).isEqualTo(1);
        assertThat(r.medianTps()).isEqualTo(42);
        assertThat(unloaded).hasValue(0);
    }

    @Test
    void preflight_refuses_unless_forced() throws Exception {
        Bench b = new Bench(() -> figures(2.0, null), options(3, false), Clock.systemUTC(), d -> { });
        Bench.EngineResult r = b.run(List.of(new Bench.Target("e", "openai", (FakeEngine) req -> {
            throw new AssertionError("must not be called");
        }, null, null))).get(0);
        assertThat(r.refused()).containsExactly("memory pressure is critical");

        Bench forced = new Bench(() -> figures(2.0, null), options(1, true), Clock.systemUTC(), d -> { });
        assertThat(forced.run(List.of(new Bench.Target("e", "openai", engine(tps(1, 0.1), tps(2, 0.1)), null, null)))
                .get(0).valid()).isEqualTo(1);
    }

    @Test
    void unloads_between_engines_and_cools_down_adaptively() throws Exception {
        // a clock the sleeper advances, so the 30 s wait needs no real time
        Instant[] now = {Instant.parse("2026-11-30T00:00:00Z")};
        Clock clock = new Clock() {
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            public Clock withZone(java.time.ZoneId z) {
                return this;
            }

            public Instant instant() {
                return now[0];
            }
        };
        List<Duration> slept = new ArrayList<>();
        AtomicInteger pressureReads = new AtomicInteger();
        List<String> unloaded = new ArrayList<>();
        // reads 0-2 belong to engine a; the first three cool-down reads see warning, then normal
        Bench b = new Bench(() -> {
            int n = pressureReads.getAndIncrement();
            return figures(n >= 3 && n < 6 ? 1.0 : 0.0, null);
        }, options(1, false), clock, d -> {
            slept.add(d);
            now[0] = now[0].plus(d);
        });
        List<Bench.EngineResult> rs = b.run(List.of(
                new Bench.Target("a", "ollama", engine(tps(1, 0.1), tps(20, 0.1)), "m1", () -> unloaded.add("a")),
                new Bench.Target("b", "ollama", engine(tps(1, 0.1), tps(30, 0.1)), "m2", () -> unloaded.add("b"))));
        assertThat(unloaded).containsExactly("a", "b");
        assertThat(rs.get(0).coolDown()).isNull();
        // three 1 s polls while pressure was raised, then the 5 s settle
        assertThat(slept).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(5));
        assertThat(rs.get(1).coolDown()).startsWith("waited 3.0 s for memory pressure to be normal (now normal), then paused 5s");
        assertThat(rs.get(1).medianTps()).isEqualTo(30);

        // pressure that never clears: the wait ends at 30 s
        slept.clear();
        Bench stuck = new Bench(() -> figures(1.0, null), options(1, false), clock, d -> {
            slept.add(d);
            now[0] = now[0].plus(d);
        });
        assertThat(stuck.coolDown()).startsWith("waited 30.0 s for memory pressure to be normal (now warning)");
        assertThat(slept).hasSize(31);
    }

    @Test
    void the_engines_own_decode_rate_wins_over_the_client_side_one() {
        ProbeResult both = new ProbeResult(true, null, null, Instant.now(), "m", 0.01, 0.2, 2.2, 49.5, 100L, 64L,
                "engine", null, 0.19, 50.1, null, List.of());
        assertThat(Bench.decodeRate(both)).isEqualTo(50.1);
        assertThat(Bench.decodeRateSource(both)).isEqualTo("engine");
        ProbeResult client = new ProbeResult(true, null, null, Instant.now(), "m", 0.01, 0.2, 2.2, 49.5, 100L, 64L,
                "usage", null, null, null, null, List.of());
        assertThat(Bench.decodeRate(client)).isEqualTo(49.5);
        assertThat(Bench.decodeRateSource(client)).isEqualTo("client");
    }

    @Test
    void a_median_ten_percent_below_the_seven_day_median_is_a_regression() {
        BenchReport.Regression at10 = BenchReport.Regression.judge(36.0, 40.0, 4);
        assertThat(at10.regressed()).isTrue();
        assertThat(at10.change()).isCloseTo(-0.10, within(1e-12));
        assertThat(BenchReport.Regression.judge(36.1, 40.0, 4).regressed()).isFalse();
        assertThat(BenchReport.Regression.judge(50.0, 40.0, 4).regressed()).isFalse();
        BenchReport.Regression none = BenchReport.Regression.judge(36.0, Double.NaN, 0);
        assertThat(none.regressed()).isFalse();
        assertThat(none.change()).isNaN();
    }
}
