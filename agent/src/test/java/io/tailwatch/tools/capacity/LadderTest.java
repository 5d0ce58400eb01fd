package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LadderTest {
    static final double[] N1 = {3.67, 3.41, 3.42, 3.60, 3.47};
    /** Six N=2 latencies with the measured case's p50 15.75 s, p95 35.01 s and average 19.88 s. */
    static final double[] N2 = {6.50, 35.01, 12.30, 28.32, 15.75, 21.40};

    static LadderOptions options(List<Integer> levels, Integer perLevel, boolean cont) {
        return new LadderOptions("m", levels, perLevel, 500, 120, 0.0, Duration.ofMinutes(15), 1000, cont,
                StopRules.DEFAULTS, Duration.ofSeconds(60), Duration.ofMinutes(5));
    }

    static HostFigures host(double swap, double pressure) {
        return new HostFigures(Instant.now(), swap, 192.0 * (1L << 30), 100.0 * (1L << 30), pressure, 0.0, null, 1e9, null);
    }

    static LadderResult run(EngineClient engine, LadderOptions o) {
        return new Ladder(engine, () -> host(0, 0), HealthCheck.NONE, o, Clock.systemUTC()).run(host(0, 0),
                new Ladder.Listener() { });
    }

    @Test
    void source_case_stops_after_level_two_with_ratio_9_54() {
        ScriptedEngine engine = new ScriptedEngine().ok(3.5).ok(N1).ok(N2);
        LadderResult r = run(engine, options(List.of(1, 2, 4, 8), null, false));

        assertThat(r.levels()).extracting(LevelResult::concurrency).containsExactly(1, 2);
        assertThat(r.levels().get(0).requests()).isEqualTo(5);
        assertThat(r.levels().get(1).requests()).isEqualTo(6);
        assertThat(r.levels().get(0).e2e().mean()).isCloseTo(3.51, within(0.005));
        assertThat(r.levels().get(1).e2e().mean()).isCloseTo(19.88, within(0.005));
        assertThat(r.levels().get(1).e2e().p50()).isEqualTo(15.75);
        assertThat(r.levels().get(1).e2e().p95()).isEqualTo(35.01);
        assertThat(r.stop().rule()).isEqualTo(StopRules.P95_RATIO);
        assertThat(r.stop().level()).isEqualTo(2);
        assertThat(r.stop().value()).isEqualTo(9.54);
        assertThat(r.stop().threshold()).isEqualTo(3.0);
        assertThat(engine.requests).hasSize(1 + 5 + 6);
        assertThat(r.warmup().success()).isTrue();
        assertThat(engine.requests.get(0).temperature()).isZero();
        assertThat(r.interrupted()).isFalse();
    }

    @Test
    void continue_runs_every_level_and_lists_each_trip() {
        ScriptedEngine engine = new ScriptedEngine().ok(3.5).ok(N1).ok(N2).ok(40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51);
        LadderResult r = run(engine, options(List.of(1, 2, 4), null, true));
        assertThat(r.levels()).extracting(LevelResult::concurrency).containsExactly(1, 2, 4);
        assertThat(r.stop().level()).isEqualTo(2);
        assertThat(r.tripped()).extracting(StopRules.Stop::level).containsExactly(2, 4);
    }

    @Test
    void any_error_stops_at_level_one() {
        ScriptedEngine engine = new ScriptedEngine().ok(1).ok(1, 1, 1, 1).fail("http_503", 1);
        LadderResult r = run(engine, options(List.of(1, 2, 4), null, false));
        assertThat(r.levels()).hasSize(1);
        assertThat(r.stop().rule()).isEqualTo(StopRules.ERROR_RATE);
        assertThat(r.stop().level()).isEqualTo(1);
        assertThat(r.stop().value()).isCloseTo(0.2, within(1e-9));
        assertThat(r.levels().get(0).errors()).isEqualTo(1);
        // the failed request does not pollute the latency figures
        assertThat(r.levels().get(0).e2e().count()).isEqualTo(4);
    }

    @Test
    void swap_growth_health_and_pressure_rules() {
        AtomicInteger calls = new AtomicInteger();
        // before/after pairs: step 1 swap 0 -> 2 GiB
        Ladder swap = new Ladder(new ScriptedEngine().ok(1).ok(1, 1, 1, 1, 1),
                () -> host(calls.getAndIncrement() == 0 ? 0 : 2.0 * (1L << 30), 0), HealthCheck.NONE,
                options(List.of(1, 2), null, false), Clock.systemUTC());
        LadderResult rs = swap.run(host(0, 0), new Ladder.Listener() { });
        assertThat(rs.stop().rule()).isEqualTo(StopRules.SWAP_GROWTH);
        assertThat(rs.stop().value()).isEqualTo(2.0 * (1L << 30));
        assertThat(rs.stop().threshold()).isEqualTo(1.0 * (1L << 30));

        Ladder health = new Ladder(new ScriptedEngine().ok(1).ok(1, 1, 1, 1, 1), () -> host(0, 0),
                () -> "GET /api/version: connect_refused", options(List.of(1, 2), null, false), Clock.systemUTC());
        LadderResult rh = health.run(host(0, 0), new Ladder.Listener() { });
        assertThat(rh.stop().rule()).isEqualTo(StopRules.HEALTH);
        assertThat(rh.stop().detail()).contains("connect_refused");

        AtomicInteger p = new AtomicInteger();
        Ladder pressure = new Ladder(new ScriptedEngine().ok(1).ok(1, 1, 1, 1, 1),
                () -> host(0, p.getAndIncrement() == 0 ? 0 : 2), HealthCheck.NONE,
                options(List.of(1, 2), null, false), Clock.systemUTC());
        assertThat(pressure.run(host(0, 0), new Ladder.Listener() { }).stop().rule()).isEqualTo(StopRules.MEMORY_PRESSURE);
    }

    @Test
    void default_request_counts_and_request_cap() {
        LadderOptions o = options(List.of(1, 2, 4, 8), null, false);
        assertThat(o.requestsAt(1)).isEqualTo(5);
        assertThat(o.requestsAt(2)).isEqualTo(6);
        assertThat(o.requestsAt(4)).isEqualTo(12);
        assertThat(o.requestsAt(8)).isEqualTo(24);
        LadderOptions capped = new LadderOptions("m", List.of(1, 2), 5, 10, 10, 0, Duration.ofMinutes(1), 8, false,
                StopRules.DEFAULTS, Duration.ofSeconds(5), Duration.ofSeconds(10));
        ScriptedEngine engine = new ScriptedEngine().ok(1).ok(1, 1, 1, 1, 1);
        LadderResult r = run(engine, capped);
        assertThat(r.levels()).hasSize(1);
        assertThat(r.stop().rule()).isEqualTo(StopRules.MAX_REQUESTS);
        assertThat(r.stop().level()).isEqualTo(2);
        assertThat(engine.requests).hasSize(6);
    }

    /** Holds each call until {@code level} calls are in flight together once, recording the most ever seen. */
    static final class OverlapEngine implements FakeEngine {
        final AtomicInteger inFlight = new AtomicInteger();
        final ConcurrentHashMap<Integer, Integer> maxByLevel = new ConcurrentHashMap<>();
        volatile int level = 1;
        volatile CountDownLatch reached = new CountDownLatch(1);

        void expect(int c) {
            level = c;
            reached = new CountDownLatch(1);
        }

        @Override
        public ProbeResult probe(ProbeRequest request) {
            int now = inFlight.incrementAndGet();
            maxByLevel.merge(level, now, Math::max);
            if (now >= level) {
                reached.countDown();
            }
            try {
                reached.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inFlight.decrementAndGet();
            }
            return ScriptedEngine.ok(0.1, 10);
        }
    }

    @Test
    void each_step_runs_at_exactly_its_concurrency() {
        OverlapEngine engine = new OverlapEngine();
        Ladder ladder = new Ladder(engine, () -> host(0, 0), HealthCheck.NONE,
                options(List.of(1, 2, 4), 8, false), Clock.systemUTC());
        LadderResult r = ladder.run(host(0, 0), new Ladder.Listener() {
            @Override
            public void warmup(ProbeResult w) {
                engine.expect(1);
            }

            @Override
            public void step(LadderResult progress) {
                int done = progress.levels().size();
                engine.expect(List.of(1, 2, 4, 4).get(done));
            }
        });
        assertThat(r.stop()).isNull();
        assertThat(r.levels()).allSatisfy(l -> assertThat(l.requests()).isEqualTo(8));
        assertThat(engine.maxByLevel).containsEntry(1, 1).containsEntry(2, 2).containsEntry(4, 4);
    }

    @Test
    void cancel_returns_partial_results_at_once() throws Exception {
        CountDownLatch started = new CountDownLatch(3);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger served = new AtomicInteger();
        FakeEngine engine = req -> {
            if (served.incrementAndGet() <= 3) {
                started.countDown();
                return ScriptedEngine.ok(1, 10);
            }
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ScriptedEngine.failed("_OTHER");
        };
        Ladder ladder = new Ladder(engine, () -> host(0, 0), HealthCheck.NONE, options(List.of(1, 2), null, false),
                Clock.systemUTC());
        var exec = Executors.newSingleThreadExecutor();
        try {
            Future<LadderResult> f = exec.submit(() -> ladder.run(host(0, 0), new Ladder.Listener() { }));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            ladder.cancel();
            LadderResult r = f.get(10, TimeUnit.SECONDS);
            assertThat(r.interrupted()).isTrue();
            assertThat(r.stop().rule()).isEqualTo(StopRules.INTERRUPTED);
            assertThat(r.levels()).hasSize(1);
            assertThat(r.levels().get(0).complete()).isFalse();
            assertThat(r.levels().get(0).requests()).isEqualTo(2);
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void max_duration_cuts_a_hanging_step() {
        AtomicReference<Duration> lastTotal = new AtomicReference<>();
        AtomicInteger n = new AtomicInteger();
        FakeEngine engine = req -> {
            lastTotal.set(req.totalTimeout());
            if (n.incrementAndGet() == 1) {
                return ScriptedEngine.ok(0.01, 1);
            }
            try {
                Thread.sleep(req.totalTimeout().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ScriptedEngine.failed("total_timeout");
        };
        LadderOptions o = new LadderOptions("m", List.of(1, 2), null, 10, 10, 0, Duration.ofMillis(800), 100, false,
                StopRules.DEFAULTS, Duration.ofSeconds(30), Duration.ofMinutes(5));
        LadderResult r = run(engine, o);
        assertThat(r.stop().rule()).isEqualTo(StopRules.MAX_DURATION);
        assertThat(r.levels().get(0).complete()).isFalse();
        // no request may be given a deadline beyond the run's max duration
        assertThat(lastTotal.get()).isLessThanOrEqualTo(Duration.ofMillis(800));
        assertThat(r.levels()).hasSize(1);
    }
}
