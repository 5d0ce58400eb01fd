package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The lane window's figures where its bounds bite: more requests than it holds, and SLOs that come and go. */
class LaneWindowTest {
    private static final long S = 1_000_000_000L;

    @Test
    void theMeanInFlightStaysExactWhenMoreRequestsEndedThanTheWindowHolds() {
        LaneWindow w = new LaneWindow();
        // 1,000 requests of 0.25 s back to back (one in flight all the time), 250 s in all: a serial engine's
        // lane at 4 requests a second, which the count bound cuts to the last 512.
        long t0 = 100 * S;
        for (int i = 0; i < 1000; i++) {
            w.add(new LaneWindow.Ended(t0 + i * S / 4, t0 + (i + 1) * S / 4, -1, -1, true, null));
        }
        long now = t0 + 250 * S;
        LaneWindow.View v = w.view(now, new long[0], 0, false);
        assertThat(v.requests()).isEqualTo(LaneWindow.MAX_REQUESTS);
        assertThat(v.inFlight()).isCloseTo(1.0, within(1e-9));
        // Plus one request in flight for the last 10 s: 1 + 10 / 128 over the 128 s the window knows whole.
        assertThat(w.view(now, new long[] {now - 10 * S}, 0, false).inFlight()).isCloseTo(1 + 10.0 / 128, within(1e-9));
    }

    @Test
    void theMeanInFlightIsOverTheSpanOrTheTimeSinceTheMeterBegan() {
        LaneWindow w = new LaneWindow();
        // two requests of 30 s each, one after the other, in the last minute of a meter running for an hour
        long now = 3600 * S;
        w.add(new LaneWindow.Ended(now - 60 * S, now - 30 * S, -1, -1, true, null));
        w.add(new LaneWindow.Ended(now - 30 * S, now, -1, -1, true, null));
        assertThat(w.view(now, new long[0], 0, false).inFlight()).isCloseTo(60.0 / 300, within(1e-9));
        // the same requests for a meter that began 2 minutes ago
        assertThat(w.view(now, new long[0], now - 120 * S, false).inFlight()).isCloseTo(60.0 / 120, within(1e-9));
    }

    @Test
    void goodputCountsOnlyTheRequestsJudgedAgainstAnSlo() {
        LaneWindow w = new LaneWindow();
        long now = 1000 * S;
        // 30 requests before the lane had an SLO, then 10 within it and 2 outside it
        for (int i = 0; i < 30; i++) {
            w.add(new LaneWindow.Ended(now - 200 * S, now - 199 * S, -1, -1, true, null));
        }
        assertThat(w.view(now, new long[0], 0, true).goodput()).isNaN();
        for (int i = 0; i < 12; i++) {
            w.add(new LaneWindow.Ended(now - 100 * S, now - 99 * S, -1, -1, true, i < 10));
        }
        LaneWindow.View v = w.view(now, new long[0], 0, true);
        assertThat(v.requests()).isEqualTo(42);
        assertThat(v.goodput()).isCloseTo(10.0 / 12, within(1e-12));
        // and no goodput at all once the lane has no SLO again
        assertThat(w.view(now, new long[0], 0, false).goodput()).isNaN();
    }
}
