package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bcrypt turns stepped by hand (no threads, no clock): one permit, as on a 2-core machine, the guard's
 * queue sizes, and a flood that refills its queue the moment it can.
 */
class FairTurnsTest {
    private static final int PERMITS = 1;

    private static FairTurns turns() {
        return new FairTurns(PERMITS, BasicAuthGuard.WAITING_PER_USER, BasicAuthGuard.MAX_WAITING);
    }

    /**
     * A flood against user A (every turn it can get, its queue refilled after every step) beside user B asking
     * for 50 checks one after another, never verified: every one of B's checks is granted, each after at most
     * one of A's, and A is refused whenever its own queue is full while B never is.
     */
    @Test
    void aFloodAgainstOneUserNeverStarvesAnother() {
        FairTurns t = turns();
        ArrayDeque<FairTurns.Turn> running = new ArrayDeque<>();
        List<FairTurns.Turn> floodQueue = new ArrayList<>();
        FairTurns.Turn first = t.enter("A");
        assertThat(t.granted(first)).isTrue();
        running.add(first);
        int bGranted = 0;
        int aGranted = 1;
        int aRefused = 0;
        for (int i = 0; i < 50; i++) {
            // A's flood: as many guesses as it can place, and more that are refused.
            for (int k = 0; k < 5; k++) {
                FairTurns.Turn a = t.enter("A");
                if (a == null) {
                    aRefused++;
                } else {
                    floodQueue.add(a);
                }
            }
            FairTurns.Turn b = t.enter("B");
            assertThat(b).as("B's check %d is let in", i).isNotNull();
            int aBeforeB = 0;
            while (!t.granted(b)) {
                FairTurns.Turn done = running.poll();
                t.leave(done);
                for (FairTurns.Turn a : floodQueue) {
                    if (t.granted(a) && !running.contains(a)) {
                        running.add(a);
                        aGranted++;
                        aBeforeB++;
                    }
                }
                floodQueue.removeIf(running::contains);
                // A refills its queue at once.
                FairTurns.Turn a = t.enter("A");
                if (a == null) {
                    aRefused++;
                } else {
                    floodQueue.add(a);
                }
            }
            assertThat(aBeforeB).as("A's checks granted before B's check %d", i).isLessThanOrEqualTo(1);
            running.add(b);
            bGranted++;
            assertThat(t.running()).isEqualTo(PERMITS);
            assertThat(t.waiting()).isLessThanOrEqualTo(BasicAuthGuard.MAX_WAITING);
        }
        assertThat(bGranted).isEqualTo(50);
        assertThat(aGranted).as("the flood still gets its share").isGreaterThanOrEqualTo(50);
        assertThat(aRefused).isPositive();
        assertThat(t.refused()).isEqualTo(aRefused);
    }

    /** Random unknown names share one key in the guard, so they are one flood: the same round-robin applies. */
    @Test
    void guessingManyNamesIsOneIdentityAndTheTotalWaitingIsBounded() {
        FairTurns t = turns();
        FairTurns.Turn held = t.enter("first");
        assertThat(t.granted(held)).isTrue();
        // A thousand distinct keys: at most MAX_WAITING wait, in at most as many queues; the rest refused at once.
        int refused = 0;
        for (int i = 0; i < 1000; i++) {
            if (t.enter("user-" + i) == null) {
                refused++;
            }
        }
        assertThat(t.waiting()).isEqualTo(BasicAuthGuard.MAX_WAITING);
        assertThat(t.waitingKeys()).isEqualTo(BasicAuthGuard.MAX_WAITING);
        assertThat(refused).isEqualTo(1000 - BasicAuthGuard.MAX_WAITING);
        // Checks running and waiting together leave two of the listener's eight worker threads free.
        assertThat(BasicAuthGuard.MAX_BCRYPT + BasicAuthGuard.MAX_WAITING).isLessThanOrEqualTo(6);
        // Floods against three identities at once leave a queue for a fourth.
        FairTurns u = turns();
        List<String> floods = List.of("A", "unknown", "C");
        List<FairTurns.Turn> flood = new ArrayList<>();
        FairTurns.Turn current = u.enter("x");
        for (String key : floods) {
            for (int k = 0; k < 10; k++) {
                flood.add(u.enter(key));
            }
        }
        FairTurns.Turn b = u.enter("B");
        assertThat(b).isNotNull();
        assertThat(u.enter("B")).as("B's own queue is full").isNull();
        // B's turn comes after the three queued before it, one each, though every flood refills its queue at once.
        int floodTurnsBeforeB = 0;
        while (!u.granted(b)) {
            u.leave(current);
            flood.removeIf(x -> x == null);
            current = flood.stream().filter(u::granted).findFirst().orElse(null);
            if (current != null) {
                flood.remove(current);
                floodTurnsBeforeB++;
            }
            for (String key : floods) {
                flood.add(u.enter(key));
            }
            assertThat(u.waiting()).isLessThanOrEqualTo(BasicAuthGuard.MAX_WAITING);
        }
        assertThat(floodTurnsBeforeB).isEqualTo(floods.size());
    }

    /** A waiter whose deadline passes leaves its queue: the count and the map shrink, and the next turn skips it. */
    @Test
    void aTurnWhoseDeadlinePassesIsWithdrawn() {
        FairTurns t = turns();
        FairTurns.Turn held = t.enter("A");
        FairTurns.Turn late = t.enter("B");
        FairTurns.Turn next = t.enter("C");
        assertThat(t.await(late, 0, TimeUnit.NANOSECONDS)).isFalse();
        assertThat(t.expired()).isEqualTo(1);
        assertThat(t.waiting()).isEqualTo(1);
        assertThat(t.waitingKeys()).isEqualTo(1);
        t.leave(held);
        assertThat(t.granted(late)).isFalse();
        assertThat(t.granted(next)).isTrue();
        assertThat(t.await(next, 0, TimeUnit.NANOSECONDS)).as("already granted").isTrue();
        t.leave(next);
        assertThat(t.running()).isZero();
        assertThat(t.waiting()).isZero();
    }
}
