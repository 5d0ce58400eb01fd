package io.tailwatch.daemon.api;

import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The job queue of the listener's thread pool: jobs run in the order they came (first in, first out), but a
 * job goes to the thread that became idle <em>last</em>, not to the one idle longest.
 *
 * <p>Jetty's pool threads wait for work by polling their queue; with a plain blocking queue the signal wakes the
 * longest waiter, so requests spaced further apart than one request takes rotate over every thread the pool
 * ever started. Each of those threads comes back cold (its stack, its allocation buffer and the caches that
 * held them) and none stays idle long enough to reach the pool's idle timeout, so the pool never shrinks.
 * Handing the job to the most recently idle thread keeps one warm thread serving a scraper's and a health
 * checker's requests, and lets the others time out and end.
 *
 * <p>Unbounded, as Jetty's own default queue and as its pool requires (it warns about a bounded one: a job it
 * cannot queue may be one of the selector's own, and refusing that strands connections). What reaches it is
 * bounded before it: one job per connection event, and the listener's lanes bound the requests that run at
 * once. Few threads wait here (the pool's maximum), so a lock around two small deques is enough.
 */
final class LastIdleFirstQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Runnable> jobs = new ArrayDeque<>();
    /** Threads waiting for a job, the most recently idle first. */
    private final ArrayDeque<Waiter> idle = new ArrayDeque<>();

    /** One wait of one thread: its own condition, so that exactly this thread can be woken. */
    private static final class Waiter {
        final Condition woken;
        boolean handed;

        Waiter(Condition woken) {
            this.woken = woken;
        }
    }

    @Override
    public boolean offer(Runnable job) {
        java.util.Objects.requireNonNull(job, "job");
        lock.lock();
        try {
            jobs.addLast(job);
            wakeOne();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes the most recently idle waiter, if any; called with the lock held and a job queued. */
    private void wakeOne() {
        Waiter w = idle.pollFirst();
        if (w != null) {
            w.handed = true;
            w.woken.signal();
        }
    }

    @Override
    public boolean offer(Runnable job, long timeout, TimeUnit unit) {
        return offer(job);
    }

    @Override
    public void put(Runnable job) {
        offer(job);
    }

    @Override
    public Runnable poll() {
        lock.lock();
        try {
            return jobs.pollFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            Waiter w = null;
            try {
                while (jobs.isEmpty()) {
                    if (nanos <= 0) {
                        return null;
                    }
                    if (w == null || w.handed) {
                        // First wait, or woken for a job another thread took first: wait again, as the most recent.
                        w = new Waiter(lock.newCondition());
                        idle.addFirst(w);
                    }
                    nanos = w.woken.awaitNanos(nanos);
                }
            } catch (InterruptedException e) {
                if (w != null && !w.handed) {
                    idle.remove(w);
                    w = null;
                }
                if (!jobs.isEmpty()) {
                    wakeOne(); // a job handed to this thread goes to the next one
                }
                throw e;
            } finally {
                if (w != null && !w.handed) {
                    idle.remove(w);
                }
            }
            Runnable job = jobs.pollFirst();
            if (!jobs.isEmpty()) {
                wakeOne();
            }
            return job;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable take() throws InterruptedException {
        return poll(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
    }

    @Override
    public Runnable peek() {
        lock.lock();
        try {
            return jobs.peekFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int size() {
        lock.lock();
        try {
            return jobs.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean remove(Object job) {
        lock.lock();
        try {
            return jobs.remove(job);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    /** Threads waiting for a job now. */
    int waiting() {
        lock.lock();
        try {
            return idle.size();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int drainTo(Collection<? super Runnable> to) {
        return drainTo(to, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> to, int max) {
        lock.lock();
        try {
            int n = 0;
            while (n < max && !jobs.isEmpty()) {
                to.add(jobs.pollFirst());
                n++;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** A snapshot of the waiting jobs (for the pool's dump); removing through it changes nothing. */
    @Override
    public Iterator<Runnable> iterator() {
        lock.lock();
        try {
            return new ArrayList<>(jobs).iterator();
        } finally {
            lock.unlock();
        }
    }
}
