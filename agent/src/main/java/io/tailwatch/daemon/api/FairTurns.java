package io.tailwatch.daemon.api;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded number of permits handed out in turns that are fair per key: callers wait in a queue of their own key
 * (at most {@code perKey} waiting each, at most {@code maxWaiting} in all), and a freed permit goes to the next key
 * in round-robin order, so a key with a full queue takes one turn in every round and never more. A key whose queue
 * is full, or any key while all queues together are full, is refused at once. The map of queues holds only keys
 * with a waiter, so it is bounded by {@code maxWaiting} whatever keys are asked for.
 *
 * <p>{@link #enter} and {@link #leave} never block (the order can be stepped deterministically in a test);
 * {@link #await} blocks a waiting caller until its turn or its deadline.
 */
final class FairTurns {
    /** One caller's place: granted a permit, or waiting in its key's queue. */
    static final class Turn {
        final Object key;
        private boolean granted;
        private boolean withdrawn;

        private Turn(Object key) {
            this.key = key;
        }
    }

    private final int permits;
    private final int perKey;
    private final int maxWaiting;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** The queue of each key that has a waiter (none empty). */
    private final Map<Object, ArrayDeque<Turn>> queues = new HashMap<>();
    /** The keys with a waiter, in the order their next turn comes. */
    private final ArrayDeque<Object> order = new ArrayDeque<>();
    private int running;
    private int waiting;
    private long queued;
    private long refused;
    private long expired;

    FairTurns(int permits, int perKey, int maxWaiting) {
        if (permits < 1 || perKey < 1 || maxWaiting < perKey) {
            throw new IllegalArgumentException("permits, perKey >= 1 and maxWaiting >= perKey");
        }
        this.permits = permits;
        this.perKey = perKey;
        this.maxWaiting = maxWaiting;
    }

    /**
     * A turn for {@code key}: granted at once when a permit is free and nobody waits, else queued behind its key's
     * earlier callers; null when the key's queue (or every queue together) is full.
     */
    Turn enter(Object key) {
        lock.lock();
        try {
            Turn t = new Turn(key);
            if (running < permits && waiting == 0) {
                running++;
                t.granted = true;
                return t;
            }
            ArrayDeque<Turn> q = queues.get(key);
            if ((q != null && q.size() >= perKey) || waiting >= maxWaiting) {
                refused++;
                return null;
            }
            if (q == null) {
                q = new ArrayDeque<>(perKey);
                queues.put(key, q);
                order.addLast(key);
            }
            q.addLast(t);
            waiting++;
            queued++;
            return t;
        } finally {
            lock.unlock();
        }
    }

    /** True when {@code t} holds a permit. */
    boolean granted(Turn t) {
        return read(() -> t.granted ? 1 : 0) == 1;
    }

    /** Gives back a granted turn's permit: it goes to the next key in round-robin order that has a waiter. */
    void leave(Turn t) {
        lock.lock();
        try {
            if (!t.granted) {
                throw new IllegalStateException("leave without a permit");
            }
            t.granted = false;
            running--;
            while (running < permits && !order.isEmpty()) {
                Object key = order.pollFirst();
                ArrayDeque<Turn> q = queues.get(key);
                Turn next = q.pollFirst();
                waiting--;
                running++;
                next.granted = true;
                if (q.isEmpty()) {
                    queues.remove(key);
                } else {
                    order.addLast(key);
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code timeout} for a queued turn's permit: true when granted (the caller must {@link #leave}),
     * false when the deadline passed or the thread was interrupted (the turn is withdrawn from its queue; the
     * interrupt stays set).
     */
    boolean await(Turn t, long timeout, TimeUnit unit) {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (!t.granted && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (!t.granted) {
                withdraw(t);
            }
            lock.unlock();
        }
        return t.granted;
    }

    private void withdraw(Turn t) {
        if (t.withdrawn) {
            return;
        }
        t.withdrawn = true;
        ArrayDeque<Turn> q = queues.get(t.key);
        if (q != null && q.remove(t)) {
            waiting--;
            expired++;
            if (q.isEmpty()) {
                queues.remove(t.key);
                order.remove(t.key);
            }
        }
    }

    /** Callers waiting now, in all queues. */
    int waiting() {
        return (int) read(() -> waiting);
    }

    /** Keys with a waiter now (the size of the map of queues). */
    int waitingKeys() {
        return (int) read(queues::size);
    }

    /** Permits held now. */
    int running() {
        return (int) read(() -> running);
    }

    /** Turns that waited in a queue, so far. */
    long queued() {
        return read(() -> queued);
    }

    /** Turns refused because their key's queue (or all queues) was full, so far. */
    long refused() {
        return read(() -> refused);
    }

    /** Queued turns withdrawn at their deadline (or on interrupt), so far. */
    long expired() {
        return read(() -> expired);
    }

    private long read(java.util.function.LongSupplier value) {
        lock.lock();
        try {
            return value.getAsLong();
        } finally {
            lock.unlock();
        }
    }
}
