package io.tailwatch.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves by hand: simulated time for rules, windows and host snapshots. */
public final class SimClock extends Clock {
    private volatile Instant now;

    /** Starting at 2026-01-01T00:00:00Z. */
    public SimClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public SimClock(Instant start) {
        this.now = start;
    }

    public Instant advance(Duration d) {
        now = now.plus(d);
        return now;
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
