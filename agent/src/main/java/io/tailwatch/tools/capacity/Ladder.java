package io.tailwatch.tools.capacity;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The concurrency ladder: one warm-up request, then for each level N requests with exactly that
 * many in flight (a closed loop of {@code level} workers), host figures before and after, the stop
 * rules after each step. Bounded by the request cap and the max duration; {@link #cancel()} ends it
 * at once and {@link #run} still returns what was measured.
 */
public final class Ladder {
    /** Progress callbacks, called on the thread that runs the ladder (requests: on worker threads). */
    public interface Listener {
        default void warmup(ProbeResult r) {
        }

        /** A step starts: {@code planned} requests at {@code concurrency}. */
        default void level(int concurrency, int planned) {
        }

        default void request(int concurrency, ProbeResult r) {
        }

        default void step(LadderResult progress) {
        }
    }

    private static final Duration MIN_REQUEST_TIME = Duration.ofMillis(200);

    private final EngineClient client;
    private final Supplier<HostFigures> host;
    private final HealthCheck health;
    private final LadderOptions options;
    private final Clock clock;
    private final AtomicReference<String> cancelled = new AtomicReference<>();
    private final Object lock = new Object();

    private Instant start;
    private HostFigures preflight;
    private ProbeResult warmup;
    private final List<LevelResult> levels = new ArrayList<>();
    private final List<StopRules.Stop> tripped = new ArrayList<>();
    private StopRules.Stop stop;
    private boolean interrupted;
    private LevelResult running;

    public Ladder(EngineClient client, Supplier<HostFigures> host, HealthCheck health, LadderOptions options,
                  Clock clock) {
        this.client = client;
        this.host = host;
        this.health = health;
        this.options = options;
        this.clock = clock;
    }

    /** Stops the run as soon as possible; in-flight requests are abandoned. Safe from any thread. */
    /** Stops the run (Ctrl-C): requests in flight are aborted and dropped; the report covers what finished. */
    public void cancel() {
        cancelled.compareAndSet(null, StopRules.INTERRUPTED);
        client.abort();
    }

    public boolean isCancelled() {
        return cancelled.get() != null;
    }

    /** What has been measured so far (including the step that is running, as incomplete). */
    public LadderResult progress() {
        synchronized (lock) {
            List<LevelResult> all = new ArrayList<>(levels);
            if (running != null) {
                all.add(running);
            }
            return new LadderResult(options, start, clock.instant(), preflight, warmup, all, stop, tripped, interrupted,
                    false);
        }
    }

    /** Runs the ladder on the calling thread. {@code preflightFigures} are recorded as the starting state. */
    public LadderResult run(HostFigures preflightFigures, Listener listener) {
        synchronized (lock) {
            start = clock.instant();
            preflight = preflightFigures;
        }
        Instant deadline = start.plus(options.maxDuration());
        int used = 0;
        // Warm-up: loads the model and fills caches; not counted in any step.
        if (!isCancelled()) {
            ProbeRequest req = request(deadline);
            if (req != null) {
                ProbeResult w = client.probe(req);
                used++;
                synchronized (lock) {
                    warmup = w;
                }
                listener.warmup(w);
            }
        }
        double baselineP95 = Double.NaN;
        for (int i = 0; i < options.levels().size(); i++) {
            int c = options.levels().get(i);
            if (isCancelled()) {
                break;
            }
            if (clock.instant().isAfter(deadline)) {
                recordStop(new StopRules.Stop(c, StopRules.MAX_DURATION, seconds(start, clock.instant()),
                        options.maxDuration().toNanos() / 1e9,
                        "the max duration of " + io.tailwatch.core.units.Units.format(options.maxDuration())
                                + " was reached before this step"));
                break;
            }
            int n = options.requestsAt(c);
            if (used + n > options.maxRequests()) {
                recordStop(new StopRules.Stop(c, StopRules.MAX_REQUESTS, used + n, options.maxRequests(),
                        String.format(Locale.ROOT, "this step needs %d requests; with %d already sent the cap of %d would be passed",
                                n, used, options.maxRequests())));
                break;
            }
            LevelResult level = runLevel(c, n, deadline, listener);
            used += level.requests();
            synchronized (lock) {
                running = null;
                levels.add(level);
            }
            if (i == 0) {
                baselineP95 = level.e2e().p95();
            }
            if (!level.complete()) {
                if (isCancelled()) {
                    synchronized (lock) {
                        interrupted = true;
                    }
                    recordStop(new StopRules.Stop(c, StopRules.INTERRUPTED, level.requests(), level.planned(),
                            String.format(Locale.ROOT, "interrupted during this step after %d of %d requests",
                                    level.requests(), level.planned())));
                } else {
                    recordStop(new StopRules.Stop(c, StopRules.MAX_DURATION, seconds(start, clock.instant()),
                            options.maxDuration().toNanos() / 1e9,
                            "the max duration of " + io.tailwatch.core.units.Units.format(options.maxDuration())
                                    + " was reached during this step"));
                }
                listener.step(progress());
                break;
            }
            Optional<StopRules.Stop> s = options.rules().check(level, baselineP95);
            s.ifPresent(this::recordStop);
            listener.step(progress());
            if (s.isPresent() && !options.continueAfterStop()) {
                break;
            }
        }
        if (isCancelled()) {
            synchronized (lock) {
                interrupted = true;
                if (stop == null) {
                    StopRules.Stop st = new StopRules.Stop(levels.isEmpty() ? 0 : levels.get(levels.size() - 1).concurrency(),
                            StopRules.INTERRUPTED, 0, 0, "interrupted");
                    stop = st;
                    tripped.add(st);
                }
            }
        }
        synchronized (lock) {
            return new LadderResult(options, start, clock.instant(), preflight, warmup, levels, stop, tripped,
                    interrupted, true);
        }
    }

    private void recordStop(StopRules.Stop s) {
        synchronized (lock) {
            tripped.add(s);
            if (stop == null) {
                stop = s;
            }
        }
    }

    private LevelResult runLevel(int concurrency, int planned, Instant deadline, Listener listener) {
        HostFigures before = host.get();
        List<ProbeResult> results = new ArrayList<>();
        boolean[] closed = {false};
        AtomicInteger next = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(concurrency);
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "tailwatch-ladder-" + concurrency + "-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Instant levelStart = clock.instant();
        listener.level(concurrency, planned);
        synchronized (lock) {
            running = new LevelResult(concurrency, planned, List.of(), false, levelStart, null, before, null, null);
        }
        try {
            for (int w = 0; w < concurrency; w++) {
                pool.execute(() -> {
                    try {
                        while (!isCancelled() && next.getAndIncrement() < planned) {
                            ProbeRequest req = request(deadline);
                            if (req == null) {
                                break;
                            }
                            ProbeResult r = client.probe(req);
                            if (isCancelled() && !r.success()) {
                                break; // most likely aborted by the interruption: not a measurement
                            }
                            synchronized (lock) {
                                if (closed[0]) {
                                    break;
                                }
                                results.add(r);
                                running = new LevelResult(concurrency, planned, results, false, levelStart,
                                        clock.instant(), before, null, null);
                            }
                            listener.request(concurrency, r);
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            boolean finished = false;
            while (!finished) {
                try {
                    finished = done.await(50, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    cancel();
                }
                if (!finished && (isCancelled() || clock.instant().isAfter(deadline))) {
                    break;
                }
            }
            List<ProbeResult> taken;
            synchronized (lock) {
                closed[0] = true;
                taken = List.copyOf(results);
            }
            Instant levelEnd = clock.instant();
            boolean complete = taken.size() == planned;
            HostFigures after = isCancelled() ? HostFigures.UNKNOWN : host.get();
            String problem = complete ? health.problem() : null;
            return new LevelResult(concurrency, planned, taken, complete, levelStart, levelEnd, before, after, problem);
        } finally {
            pool.shutdownNow();
        }
    }

    /** A request whose total deadline does not outlive the run; null when too little time is left. */
    private ProbeRequest request(Instant deadline) {
        Duration left = Duration.between(clock.instant(), deadline);
        if (left.compareTo(MIN_REQUEST_TIME) < 0) {
            return null;
        }
        Duration total = left.compareTo(options.requestTimeout()) < 0 ? left : options.requestTimeout();
        Duration first = options.firstTokenTimeout().compareTo(total) < 0 ? options.firstTokenTimeout() : total;
        return new ProbeRequest(options.model(), options.promptTokens(), options.maxTokens(), options.temperature(), first,
                total);
    }

    private static double seconds(Instant a, Instant b) {
        return Duration.between(a, b).toNanos() / 1e9;
    }
}
