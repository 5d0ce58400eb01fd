package io.tailwatch.core.host;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.SamplerState;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host sampling loop. Every interval each sampler runs under its own deadline; its series are
 * published to the hub under its own name, so a failing or slow sampler loses only its own signals.
 * The resulting {@link HostSnapshot} goes to listeners (rules, status).
 */
public final class HostSampling implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostSampling.class);

    private final List<Sampler> samplers;
    private final Duration interval;
    private final Duration timeout;
    private final MetricHub hub;
    private final Clock clock;
    private final List<Consumer<HostSnapshot>> listeners = new CopyOnWriteArrayList<>();
    private volatile HostSnapshot latest = HostSnapshot.EMPTY;
    /** The last two cycles' snapshots {latest, the one before}, swapped as one, for rates of counters. */
    private volatile HostSnapshot[] lastTwo = {HostSnapshot.EMPTY, null};
    private volatile Instant lastCompleted;
    private ScheduledExecutorService loop;
    private ExecutorService worker = newWorker();
    /** Reads that missed their deadline and have not returned yet, by sampler name, with their start (nanos). */
    private final Map<String, Stuck> stuck = new java.util.concurrent.ConcurrentHashMap<>();

    private static final int NEW = 0;
    private static final int RUNNING = 1;
    private static final int RETURNED = 2;
    private static final int ABANDONED = 3;

    /**
     * A read past its deadline. {@code state} is RUNNING until its thread comes back (a cancelled
     * future counts as "done" at once, so the future cannot tell).
     */
    private record Stuck(java.util.concurrent.atomic.AtomicInteger state, long startedNanos) {
        boolean inFlight() {
            return state.get() == RUNNING;
        }
    }

    public HostSampling(List<Sampler> samplers, Duration interval, Duration timeout, MetricHub hub, Clock clock) {
        this.samplers = List.copyOf(samplers);
        this.interval = interval;
        this.timeout = timeout;
        this.hub = hub;
        this.clock = clock;
    }

    private static ExecutorService newWorker() {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tailwatch-sampler");
            t.setDaemon(true);
            return t;
        });
    }

    public void addListener(Consumer<HostSnapshot> listener) {
        listeners.add(listener);
    }

    public List<Sampler> samplers() {
        return samplers;
    }

    public Duration interval() {
        return interval;
    }

    public void start() {
        loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tailwatch-host");
            t.setDaemon(true);
            return t;
        });
        loop.scheduleAtFixedRate(() -> {
            try {
                sampleOnce();
            } catch (RuntimeException e) {
                LOG.error("host sampling cycle failed", e);
            }
        }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Runs every sampler once, publishes, notifies listeners and returns the snapshot. */
    public synchronized HostSnapshot sampleOnce() {
        List<Point> all = new ArrayList<>();
        List<Point> self = new ArrayList<>();
        Map<String, SamplerResult> results = new LinkedHashMap<>();
        for (Sampler s : samplers) {
            if (s instanceof BlockedSampler b) {
                // Kept out by the native self-check: never called, reported every cycle.
                results.put(s.name(), new SamplerResult(s.name(), false, Duration.ZERO, b.reason()));
                hub.publish("host/" + s.name(), List.of());
                self.add(Point.of(SelfMetrics.SAMPLER_SUCCESS, 0, AttrKeys.SAMPLER, s.name()));
                self.add(Point.of(SelfMetrics.SAMPLER_STATE, 1, b.state(), AttrKeys.SAMPLER, s.name()));
                continue;
            }
            self.add(Point.of(SelfMetrics.SAMPLER_STATE, 1, SamplerState.RUNNING, AttrKeys.SAMPLER, s.name()));
            long start = System.nanoTime();
            List<Point> points = List.of();
            String error = null;
            Stuck pending = stuck.get(s.name());
            if (pending != null && pending.inFlight()) {
                // At most one read in flight per sampler: a read blocked in the kernel (a hung mount,
                // a FIFO) keeps its thread, and no second one is started until it returns.
                long secs = TimeUnit.NANOSECONDS.toSeconds(start - pending.startedNanos());
                error = "stuck: a read started " + secs + " s ago has not returned; no new read until it does";
                Duration took = Duration.ZERO;
                results.put(s.name(), new SamplerResult(s.name(), false, took, error));
                hub.publish("host/" + s.name(), List.of());
                self.add(Point.of(SelfMetrics.SAMPLER_SUCCESS, 0, AttrKeys.SAMPLER, s.name()));
                self.add(Point.of(SelfMetrics.SAMPLER_STUCK, 1, AttrKeys.SAMPLER, s.name()));
                continue;
            }
            if (pending != null) {
                stuck.remove(s.name());
                LOG.info("sampler {}: the stuck read returned; sampling again", s.name());
            }
            java.util.concurrent.atomic.AtomicInteger state = new java.util.concurrent.atomic.AtomicInteger(NEW);
            Future<List<Point>> f = worker.submit(() -> {
                if (!state.compareAndSet(NEW, RUNNING)) {
                    return List.of(); // abandoned before it started
                }
                try {
                    return s.sample();
                } finally {
                    state.set(RETURNED);
                }
            });
            try {
                points = f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                f.cancel(true);
                error = "deadline of " + timeout.toMillis() + " ms exceeded";
                if (!state.compareAndSet(NEW, ABANDONED)) {
                    // It started and may be blocked: its thread now belongs to this sampler until the read
                    // returns; later samplers get a fresh one.
                    stuck.put(s.name(), new Stuck(state, start));
                    worker.shutdown();
                    worker = newWorker();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                error = "interrupted";
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable c = e.getCause();
                error = c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + c.getMessage());
            }
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            if (error != null) {
                points = List.of();
                LOG.debug("sampler {} failed: {}", s.name(), error);
            }
            results.put(s.name(), new SamplerResult(s.name(), error == null, took, error));
            hub.publish("host/" + s.name(), points);
            all.addAll(points);
            self.add(Point.of(SelfMetrics.SAMPLER_SUCCESS, error == null ? 1 : 0, AttrKeys.SAMPLER, s.name()));
            Stuck now = stuck.get(s.name());
            self.add(Point.of(SelfMetrics.SAMPLER_STUCK, now != null && now.inFlight() ? 1 : 0, AttrKeys.SAMPLER, s.name()));
            self.add(Point.of(SelfMetrics.SAMPLER_DURATION, took.toNanos() / 1e9, AttrKeys.SAMPLER, s.name()));
        }
        hub.publish("host/samplers", self);
        Instant now = clock.instant();
        HostSnapshot snap = new HostSnapshot(now, all, results);
        lastTwo = new HostSnapshot[] {snap, latest};
        latest = snap;
        lastCompleted = now;
        for (Consumer<HostSnapshot> l : listeners) {
            try {
                l.accept(snap);
            } catch (RuntimeException e) {
                LOG.error("host snapshot listener failed", e);
            }
        }
        return snap;
    }

    /** Samplers whose last read has not returned (past its deadline), with how long ago it started. */
    public Map<String, Duration> stuck() {
        Map<String, Duration> out = new java.util.TreeMap<>();
        long now = System.nanoTime();
        stuck.forEach((name, st) -> {
            if (st.inFlight()) {
                out.put(name, Duration.ofNanos(now - st.startedNanos()));
            }
        });
        return out;
    }

    public HostSnapshot latest() {
        return latest;
    }

    /** The snapshot of the cycle before {@code snap}, or null when unknown (the first cycle, or an older snap). */
    public HostSnapshot previousOf(HostSnapshot snap) {
        HostSnapshot[] two = lastTwo;
        return two[0] == snap ? two[1] : null;
    }

    /** When the last full cycle completed, or null before the first. */
    public Instant lastCompleted() {
        return lastCompleted;
    }

    @Override
    public void close() {
        if (loop != null) {
            loop.shutdownNow();
        }
        worker.shutdownNow();
        // Samplers holding native resources (IOReport subscriptions) release them here.
        for (Sampler s : samplers) {
            if (s instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    LOG.debug("closing sampler {}: {}", s.name(), e.toString());
                }
            }
        }
    }
}
