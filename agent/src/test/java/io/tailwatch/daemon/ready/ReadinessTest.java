package io.tailwatch.daemon.ready;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.daemon.ready.ReadinessInput.EngineState;
import io.tailwatch.metrics.AttrValues.ReadyReason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each reason of the verdict: an input that makes it hold, and the input that clears it (after the hold). */
class ReadinessTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final double SLO = 0.5;

    /** A serial engine (one slot) behind a proxy with nothing in flight, on a calm host: ready. */
    static ReadinessInput calm() {
        return ReadinessInput.of(T0, EngineState.UP, SLO)
                .withQueue(1, "test", 0, null, null)
                .withHost(0.0, 0.0, 0.5, 0.0, 1.0)
                .withRefresh(Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(1));
    }

    /** Evaluates {@code held} after {@code calm}, then {@code cleared} past the hold; returns both verdicts. */
    static Verdict[] holdThenClear(ReadinessInput held, ReadinessInput cleared) {
        Verdict ready = Readiness.evaluate(calm(), null);
        assertThat(ready.ready()).as("calm input is ready: %s", ready.reasons()).isTrue();
        Verdict v1 = Readiness.evaluate(held.at(T0.plusSeconds(1)), ready);
        Verdict v2 = Readiness.evaluate(cleared.at(T0.plusSeconds(1).plus(Readiness.HOLD)), v1);
        return new Verdict[] {v1, v2};
    }

    static void assertHoldsThenClears(ReadyReason reason, ReadinessInput held, ReadinessInput cleared) {
        Verdict[] v = holdThenClear(held, cleared);
        assertThat(v[0].reasons()).contains(reason);
        assertThat(v[0].ready()).isFalse();
        assertThat(v[0].headroom()).isZero();
        assertThat(v[1].reasons()).doesNotContain(reason);
        assertThat(v[1].ready()).as("cleared: %s", v[1].reasons()).isTrue();
    }

    @Test
    void calmSerialEngineIsReadyWithHeadroomOfItsFreeSlot() {
        Verdict v = Readiness.evaluate(calm(), null);
        assertThat(v.ready()).isTrue();
        assertThat(v.headroom()).isEqualTo(1);
        assertThat(v.toJson("a")).containsEntry("verdict", "ready").containsEntry("reasons", List.of());
        assertThat(v.figures()).containsEntry("limit", 1).containsEntry("in_flight", 0);
    }

    @Test
    void queueFullWhenProxyInFlightReachesTheSlots() {
        assertHoldsThenClears(ReadyReason.QUEUE_FULL, calm().withQueue(1, "test", 1, null, null), calm());
    }

    @Test
    void queueFullFromEngineWaitingCountWithoutSlots() {
        assertHoldsThenClears(ReadyReason.QUEUE_FULL, calm().withQueue(null, null, null, 4.0, 1.0),
                calm().withQueue(null, null, null, 4.0, 0.0));
    }

    @Test
    void theSloAllowsAQueueWhenTheBaselineFitsInIt() {
        // 0.1 s per request alone, SLO 0.5 s: five may wait behind the one slot.
        ReadinessInput in = calm().withLatency(null, null, null, 0.1);
        assertThat(Readiness.evaluate(in.withQueue(1, "test", 5, null, null), null).ready()).isTrue();
        assertThat(Readiness.evaluate(in.withQueue(1, "test", 5, null, null), null).headroom()).isEqualTo(1);
        assertThat(Readiness.evaluate(in.withQueue(1, "test", 6, null, null), null).reasons()).containsExactly(ReadyReason.QUEUE_FULL);
        // The engine's own count is taken when it is the larger.
        assertThat(Readiness.evaluate(in.withQueue(1, "test", 0, 1.0, 5.0), null).reasons()).containsExactly(ReadyReason.QUEUE_FULL);
    }

    @Test
    void queueWaitOverSlo() {
        assertHoldsThenClears(ReadyReason.QUEUE_WAIT_OVER_SLO, calm().withLatency(0.6, "estimate", null, null),
                calm().withLatency(0.3, "estimate", null, null));
    }

    @Test
    void ttftOverSloAndNoFirstTokenInTime() {
        assertHoldsThenClears(ReadyReason.TTFT_OVER_SLO, calm().withLatency(null, null, 0.9, null),
                calm().withLatency(null, null, 0.2, null));
        assertHoldsThenClears(ReadyReason.TTFT_OVER_SLO, calm().withLatency(null, null, Double.POSITIVE_INFINITY, null),
                calm().withLatency(null, null, 0.2, null));
    }

    @Test
    void latencyInsideTheBandKeepsTheReasonPastTheHold() {
        Verdict v1 = Readiness.evaluate(calm().withLatency(null, null, 0.6, null), null);
        // 0.45 s: under the SLO but above 80 % of it; held, however long after.
        Verdict v2 = Readiness.evaluate(calm().withLatency(null, null, 0.45, null).at(T0.plusSeconds(60)), v1);
        assertThat(v2.reasons()).containsExactly(ReadyReason.TTFT_OVER_SLO);
        // The same figure never raises it on its own.
        assertThat(Readiness.evaluate(calm().withLatency(null, null, 0.45, null), null).ready()).isTrue();
        Verdict v3 = Readiness.evaluate(calm().withLatency(null, null, 0.39, null).at(T0.plusSeconds(60).plus(Readiness.HOLD)), v2);
        assertThat(v3.ready()).isTrue();
    }

    @Test
    void memoryPressure() {
        assertHoldsThenClears(ReadyReason.MEMORY_PRESSURE, calm().withHost(2.0, 0.0, 0.5, 0.0, 1.0), calm());
    }

    @Test
    void swapGrowing() {
        assertHoldsThenClears(ReadyReason.SWAP_GROWING, calm().withHost(0.0, 100.0 * 1024 * 1024, 0.5, 0.0, 1.0), calm());
    }

    @Test
    void gpuMemoryNearLimit() {
        assertHoldsThenClears(ReadyReason.GPU_MEMORY_NEAR_LIMIT, calm().withHost(0.0, 0.0, 0.93, 0.0, 1.0),
                calm().withHost(0.0, 0.0, 0.8, 0.0, 1.0));
    }

    @Test
    void thermalLimited() {
        assertHoldsThenClears(ReadyReason.THERMAL_LIMITED, calm().withHost(0.0, 0.0, 0.5, 2.0, 1.0), calm());
        assertHoldsThenClears(ReadyReason.THERMAL_LIMITED, calm().withHost(0.0, 0.0, 0.5, 0.0, 0.7), calm());
    }

    @Test
    void loading() {
        ReadinessInput loading = ReadinessInput.of(T0, EngineState.LOADING, SLO).withQueue(1, "test", 0, null, null)
                .withHost(0.0, 0.0, 0.5, 0.0, 1.0);
        assertHoldsThenClears(ReadyReason.LOADING, loading, calm());
        assertThat(Readiness.evaluate(loading, null).reasons()).containsExactly(ReadyReason.LOADING);
    }

    @Test
    void down() {
        ReadinessInput down = ReadinessInput.of(T0, EngineState.DOWN, SLO).withHost(0.0, 0.0, 0.5, 0.0, 1.0);
        assertHoldsThenClears(ReadyReason.DOWN, down, calm());
        // A down engine's queue is not read: down alone, not unknown as well.
        assertThat(Readiness.evaluate(down, null).reasons()).containsExactly(ReadyReason.DOWN);
    }

    @Test
    void unknownWhenARequiredFigureIsMissingNever200() {
        // No queue figure at all: no proxy, no engine count, no wait.
        ReadinessInput noQueue = calm().withQueue(null, null, null, null, null);
        assertHoldsThenClears(ReadyReason.UNKNOWN, noQueue, calm());
        assertThat(Readiness.evaluate(noQueue, null).unknown()).contains("queue");
        // Memory pressure unknown.
        assertHoldsThenClears(ReadyReason.UNKNOWN, calm().withHost(null, 0.0, 0.5, 0.0, 1.0), calm());
        // The engine's state unknown (no health check yet).
        ReadinessInput noState = ReadinessInput.of(T0, EngineState.UNKNOWN, SLO).withQueue(1, "t", 0, null, null)
                .withHost(0.0, 0.0, 0.5, 0.0, 1.0);
        assertHoldsThenClears(ReadyReason.UNKNOWN, noState, calm());
        // In flight known but no slot count: the queue cannot be judged.
        assertThat(Readiness.evaluate(calm().withQueue(null, null, 3, null, null), null).reasons())
                .containsExactly(ReadyReason.UNKNOWN);
    }

    @Test
    void optionalHostFiguresMissingAreListedNotBlocking() {
        Verdict v = Readiness.evaluate(calm().withHost(0.0, null, null, null, null), null);
        assertThat(v.ready()).isTrue();
        assertThat(v.unknown()).containsExactly("swap_growth", "gpu_memory_share", "thermal");
        assertThat(v.figures()).doesNotContainKeys("gpu_memory_share", "thermal_level", "swap_growth_bytes");
    }

    @Test
    void aClearedReasonHoldsForTheHoldThenGoes() {
        Verdict full = Readiness.evaluate(calm().withQueue(1, "t", 1, null, null), null);
        Verdict soon = Readiness.evaluate(calm().at(T0.plus(Readiness.HOLD).minusMillis(1)), full);
        assertThat(soon.reasons()).containsExactly(ReadyReason.QUEUE_FULL);
        assertThat(soon.retryAfterSeconds()).isEqualTo(Readiness.HOLD.toSeconds());
        Verdict later = Readiness.evaluate(calm().at(T0.plus(Readiness.HOLD)), soon);
        assertThat(later.ready()).isTrue();
    }

    @Test
    void retryAfterFollowsTheSlowestFigureBehindTheReasons() {
        ReadinessInput loading = ReadinessInput.of(T0, EngineState.LOADING, SLO).withHost(0.0, 0.0, 0.5, 0.0, 1.0)
                .withRefresh(Duration.ofSeconds(15), Duration.ZERO, Duration.ofSeconds(1));
        assertThat(Readiness.evaluate(loading, null).retryAfterSeconds()).isEqualTo(15);
        assertThat(Readiness.evaluate(calm().withQueue(1, "t", 3, null, null), null).retryAfterSeconds()).isEqualTo(Readiness.HOLD.toSeconds());
    }

    @Test
    void reasonsComeInTheDeclaredOrderAndThePrimaryIsTheFirst() {
        Verdict v = Readiness.evaluate(calm().withQueue(1, "t", 2, null, null).withHost(2.0, 0.0, 0.95, 2.0, 1.0), null);
        assertThat(v.reasons()).containsExactly(ReadyReason.QUEUE_FULL, ReadyReason.MEMORY_PRESSURE,
                ReadyReason.GPU_MEMORY_NEAR_LIMIT, ReadyReason.THERMAL_LIMITED);
        assertThat(v.primary()).isEqualTo(ReadyReason.QUEUE_FULL);
        assertThat(v.toJson("a")).containsEntry("verdict", "not_ready").containsEntry("retry_after_seconds", Readiness.HOLD.toSeconds());
    }
}
