package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/** The listener pool's queue: jobs first in, first out; each to the thread that became idle last. */
class LastIdleFirstQueueTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A thread that polls QUEUE once and records the job it got under its name. */
    private static Thread poller(LastIdleFirstQueue queue, String name, AtomicReference<String> got) {
        Thread t = new Thread(() -> {
            try {
                Runnable job = queue.poll(30, TimeUnit.SECONDS);
                if (job != null) {
                    got.set(Thread.currentThread().getName());
                    job.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.setDaemon(true);
        return t;
    }

    @Test
    void aJobGoesToTheThreadThatBecameIdleLast() throws Exception {
        LastIdleFirstQueue queue = new LastIdleFirstQueue();
        AtomicReference<String> got = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (String name : List.of("first", "second", "third")) {
            Thread t = poller(queue, name, got);
            threads.add(t);
            t.start();
            int n = threads.size();
            await().atMost(WAIT).until(() -> queue.waiting() == n);
        }
        assertThat(queue.offer(() -> { })).isTrue();
        await().atMost(WAIT).until(() -> got.get() != null);
        assertThat(got.get()).isEqualTo("third");
        assertThat(queue.waiting()).isEqualTo(2);

        got.set(null);
        assertThat(queue.offer(() -> { })).isTrue();
        await().atMost(WAIT).until(() -> got.get() != null);
        assertThat(got.get()).isEqualTo("second");
        threads.forEach(Thread::interrupt);
        await().atMost(WAIT).until(() -> queue.waiting() == 0);
    }

    @Test
    void jobsRunInTheOrderTheyCame() throws Exception {
        BlockingQueue<Runnable> queue = new LastIdleFirstQueue();
        Runnable a = () -> { };
        Runnable b = () -> { };
        Runnable c = () -> { };
        queue.put(a);
        queue.offer(b);
        queue.offer(c, 1, TimeUnit.SECONDS);
        assertThat(queue).hasSize(3).containsExactly(a, b, c);
        assertThat(queue.peek()).isSameAs(a);
        assertThat(queue.remove(b)).isTrue();
        assertThat(queue.poll(1, TimeUnit.SECONDS)).isSameAs(a);
        assertThat(queue.take()).isSameAs(c);
        assertThat(queue.poll()).isNull();
        assertThat(queue.remainingCapacity()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aWaitThatTimesOutOrIsInterruptedLeavesNoWaiterBehind() throws Exception {
        LastIdleFirstQueue queue = new LastIdleFirstQueue();
        assertThat(queue.poll(20, TimeUnit.MILLISECONDS)).isNull();
        assertThat(queue.waiting()).isZero();

        AtomicReference<String> got = new AtomicReference<>();
        Thread t = poller(queue, "interrupted", got);
        t.start();
        await().atMost(WAIT).until(() -> queue.waiting() == 1);
        t.interrupt();
        t.join(WAIT.toMillis());
        assertThat(t.isAlive()).isFalse();
        assertThat(queue.waiting()).isZero();
        // A job offered now waits for the next poll instead of going to the thread that left.
        assertThat(queue.offer(() -> { })).isTrue();
        assertThat(got.get()).isNull();
        assertThat(queue.poll(1, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void twoJobsOfferedAtOnceWakeTwoThreads() throws Exception {
        LastIdleFirstQueue queue = new LastIdleFirstQueue();
        CountDownLatch bothRunning = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Thread t = poller(queue, "t" + i, new AtomicReference<>());
            threads.add(t);
            t.start();
        }
        await().atMost(WAIT).until(() -> queue.waiting() == 2);
        Runnable job = () -> {
            bothRunning.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        queue.offer(job);
        queue.offer(job);
        assertThat(bothRunning.await(10, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        for (Thread t : threads) {
            t.join(WAIT.toMillis());
        }
        assertThat(queue).isEmpty();
    }

    /**
     * The listener's own pool: after a burst has started several threads, requests that come one at a time
     * (a scraper, a health checker) all run on one of them, not in turn on each. With a first-idle-first
     * queue (Jetty's default) they would rotate over every idle thread.
     */
    @Test
    void theListenerPoolServesOneJobAtATimeOnOneThread() throws Exception {
        QueuedThreadPool pool = ApiServer.threadPool();
        pool.start();
        try {
            int burst = 6;
            CountDownLatch started = new CountDownLatch(burst);
            CountDownLatch release = new CountDownLatch(1);
            for (int i = 0; i < burst; i++) {
                pool.execute(() -> {
                    started.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            release.countDown();
            await().atMost(WAIT).until(() -> pool.getIdleThreads() >= burst);

            java.util.Set<String> ran = new java.util.HashSet<>();
            for (int i = 0; i < 20; i++) {
                CountDownLatch done = new CountDownLatch(1);
                pool.execute(() -> {
                    ran.add(Thread.currentThread().getName());
                    done.countDown();
                });
                assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
                // The thread that ran it goes back to waiting before the next job comes, as between two scrapes.
                await().atMost(WAIT).until(() -> pool.getIdleThreads() >= burst);
            }
            assertThat(ran).hasSize(1);
        } finally {
            pool.stop();
        }
    }
}
