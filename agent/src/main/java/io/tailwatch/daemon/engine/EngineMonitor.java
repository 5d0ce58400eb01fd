package io.tailwatch.daemon.engine;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.daemon.status.StatusContributor;
import io.tailwatch.metrics.MetricHub;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Schedules every configured engine's health checks (fixed delay) and probes (each scenario on its
 * own jittered schedule, +-10 % around its interval, first run soon after start). A small shared
 * pool runs them: one thread per engine plus one, so a slow probe of one engine never delays
 * another engine or the health checks; within an engine, one probe at a time.
 */
public final class EngineMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineMonitor.class);
    static final double JITTER = io.tailwatch.core.config.WindowRequirements.JITTER;
    static final Duration MAX_FIRST_DELAY = Duration.ofSeconds(5);

    private final List<EngineWatch> watches = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final MetricHub hub;
    private final Supplier<HostSnapshot> host;
    private final Clock clock;
    private final int windowMax;
    private final List<java.util.function.BiConsumer<String, io.tailwatch.core.probe.ProbeResult>> probeListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.Map<EngineWatch, java.util.concurrent.ScheduledFuture<?>> healthTasks =
            new java.util.concurrent.ConcurrentHashMap<>();
    private ScheduledThreadPoolExecutor scheduler;
    private volatile boolean closed;
    private boolean started;

    public EngineMonitor(List<EngineConfig> engines, MetricHub hub, Supplier<HostSnapshot> host, Clock clock) {
        this(engines, hub, host, clock, ProbeWindow.DEFAULT_MAX_SAMPLES);
    }

    public EngineMonitor(List<EngineConfig> engines, MetricHub hub, Supplier<HostSnapshot> host, Clock clock,
                         int windowMax) {
        this.hub = hub;
        this.host = host;
        this.clock = clock;
        this.windowMax = windowMax;
        for (EngineConfig e : engines) {
            watches.add(wire(new EngineWatch(e, hub, host, clock, windowMax)));
        }
    }

    /** Engine name to the model string its proxied traffic uses most (null: none seen); see {@link EngineWatch#probeModel}. */
    private volatile java.util.function.Function<String, String> trafficModels = name -> null;

    /** Where every watch, now and later, finds its engine's traffic's most used model string. */
    public void trafficModels(java.util.function.Function<String, String> byEngine) {
        this.trafficModels = byEngine;
        for (EngineWatch w : watches) {
            wire(w);
        }
    }

    private EngineWatch wire(EngineWatch w) {
        String name = w.config().name();
        w.trafficModel(() -> trafficModels.apply(name));
        return w;
    }

    public List<EngineWatch> watches() {
        return List.copyOf(watches);
    }

    public EngineWatch watch(String name) {
        for (EngineWatch w : watches) {
            if (w.config().name().equals(name)) {
                return w;
            }
        }
        return null;
    }

    public synchronized EngineMonitor start() {
        started = true;
        if (watches.isEmpty()) {
            return this;
        }
        LOG.info("watching {} engine(s): {}", watches.size(),
                watches.stream().map(w -> w.config().name() + " (" + w.config().api() + " "
                        + io.tailwatch.core.logging.Redact.url(w.config().url()) + ")").toList());
        for (EngineWatch w : watches) {
            schedule(w);
        }
        return this;
    }

    /**
     * Watches one more engine (found by discovery) from now on; false when one of that name is already
     * watched. Safe from any thread, before or after {@link #start()}.
     */
    public synchronized boolean add(EngineConfig e) {
        if (closed || watch(e.name()) != null) {
            return false;
        }
        EngineWatch w = wire(new EngineWatch(e, hub, host, clock, windowMax));
        watches.add(w);
        if (started) {
            LOG.info("watching engine {} ({} {})", e.name(), e.api(), io.tailwatch.core.logging.Redact.url(e.url()));
            schedule(w);
        }
        return true;
    }

    private void schedule(EngineWatch w) {
        if (scheduler == null) {
            scheduler = new ScheduledThreadPoolExecutor(Math.min(8, watches.size() + 1), r -> {
                Thread t = new Thread(r, "tailwatch-engines");
                t.setDaemon(true);
                return t;
            });
            scheduler.setRemoveOnCancelPolicy(true);
            // Threads beyond the one that waits for the next task end after a minute without work.
            scheduler.setKeepAliveTime(60, TimeUnit.SECONDS);
            scheduler.allowCoreThreadTimeOut(true);
        } else {
            scheduler.setCorePoolSize(Math.min(8, watches.size() + 1));
        }
        long h = w.config().healthInterval().toMillis();
        healthTasks.put(w, scheduler.scheduleWithFixedDelay(() -> guarded(w, "health check", w::checkHealth),
                ThreadLocalRandom.current().nextLong(0, Math.min(h, 500) + 1), h, TimeUnit.MILLISECONDS));
        for (EngineConfig.Scenario s : w.config().scenarios()) {
            long first = Math.min(s.interval().toMillis(), MAX_FIRST_DELAY.toMillis());
            scheduleProbe(w, s, ThreadLocalRandom.current().nextLong(first / 5, first + 1));
        }
    }

    /**
     * Gives the running watch of {@code next}'s engine its new settings when none of them restarts it
     * ({@link EngineReload}); false (nothing changed) when there is no such watch or a key it is built
     * from changed.
     */
    public synchronized boolean retune(EngineConfig next) {
        EngineWatch w = watch(next.name());
        if (w == null || EngineReload.restartsWatch(w.config(), next)) {
            return false;
        }
        w.retune(next);
        return true;
    }

    /**
     * Stops watching the engine named {@code name} (a reload left it out, or discovery no longer finds it):
     * its checks and probes end and its series leave the hub. False when no engine of that name is watched.
     */
    public synchronized boolean remove(String name) {
        EngineWatch w = watch(name);
        if (w == null) {
            return false;
        }
        watches.remove(w);
        java.util.concurrent.ScheduledFuture<?> health = healthTasks.remove(w);
        if (health != null) {
            health.cancel(false);
        }
        w.retire();
        LOG.info("no longer watching engine {}", name);
        return true;
    }

    private void scheduleProbe(EngineWatch w, EngineConfig.Scenario s, long delayMillis) {
        if (closed || !watches.contains(w)) {
            return;
        }
        try {
            scheduler.schedule(() -> {
                if (!watches.contains(w)) {
                    return;
                }
                try {
                    guarded(w, "probe " + s.name(), () -> notifyProbe(w, w.probe(s.name())));
                } finally {
                    scheduleProbe(w, s, jittered(s.interval()));
                }
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // shutting down
        }
    }

    /**
     * Adds a receiver of every completed probe (engine name, result; skipped probes are not passed).
     * It runs on the probing thread, so it must be quick; engine-side signals use it for the
     * header-time queue estimate.
     */
    public void addProbeListener(java.util.function.BiConsumer<String, io.tailwatch.core.probe.ProbeResult> listener) {
        probeListeners.add(listener);
    }

    private void notifyProbe(EngineWatch w, io.tailwatch.core.probe.ProbeResult r) {
        if (r == null) {
            return;
        }
        for (java.util.function.BiConsumer<String, io.tailwatch.core.probe.ProbeResult> l : probeListeners) {
            try {
                l.accept(w.config().name(), r);
            } catch (RuntimeException e) {
                LOG.error("engine {}: probe listener failed", w.config().name(), e);
            }
        }
    }

    static long jittered(Duration interval) {
        long ms = interval.toMillis();
        double f = 1 + ThreadLocalRandom.current().nextDouble(-JITTER, JITTER);
        return Math.max(1, Math.round(ms * f));
    }

    private static void guarded(EngineWatch w, String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("engine {}: {} failed", w.config().name(), what, e);
        }
    }

    public StatusContributor status() {
        return new StatusContributor() {
            @Override
            public String name() {
                return "engines";
            }

            @Override
            public Object status() {
                return EngineStatus.of(watches);
            }
        };
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        for (EngineWatch w : watches) {
            w.close();
        }
    }
}
