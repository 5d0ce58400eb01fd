package io.tailwatch.daemon.signals;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.SignalSourceSetting;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.MetricHub;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every configured engine's own signals on its {@code signals.interval} (fixed delay, so a
 * slow engine never piles reads up), on a small pool shared by the engines, and takes probe
 * results for the header-time estimate through {@link #onProbe}.
 */
public final class EngineSignalMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineSignalMonitor.class);

    private final Map<String, EngineSignalWatch> watches = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    private final MetricHub hub;
    private final Clock clock;
    private final Map<String, java.util.concurrent.ScheduledFuture<?>> tasks = new java.util.concurrent.ConcurrentHashMap<>();
    private ScheduledThreadPoolExecutor scheduler;
    private boolean started;
    private boolean closed;

    public EngineSignalMonitor(List<EngineConfig> engines, MetricHub hub, Clock clock) {
        this.hub = hub;
        this.clock = clock;
        for (EngineConfig e : engines) {
            watches.put(e.name(), new EngineSignalWatch(e, hub, clock));
        }
    }

    public synchronized EngineSignalMonitor start() {
        started = true;
        for (EngineSignalWatch w : watches()) {
            schedule(w);
        }
        return this;
    }

    /** Reads one more engine's signals (found by discovery); false when that name is already read. */
    public synchronized boolean add(EngineConfig e) {
        if (closed || watches.containsKey(e.name())) {
            return false;
        }
        EngineSignalWatch w = new EngineSignalWatch(e, hub, clock);
        watches.put(e.name(), w);
        if (started) {
            schedule(w);
        }
        return true;
    }

    private void schedule(EngineSignalWatch w) {
        if (w.config().signals().source() == SignalSourceSetting.NONE) {
            return;
        }
        if (scheduler == null) {
            scheduler = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "tailwatch-signals");
                t.setDaemon(true);
                return t;
            });
            scheduler.setKeepAliveTime(60, TimeUnit.SECONDS);
            scheduler.allowCoreThreadTimeOut(true);
        }
        long active = watches().stream().filter(x -> x.config().signals().source() != SignalSourceSetting.NONE).count();
        scheduler.setCorePoolSize((int) Math.max(1, Math.min(4, active)));
        long every = w.config().signals().interval().toMillis();
        tasks.put(w.config().name(), scheduler.scheduleWithFixedDelay(() -> {
            try {
                w.poll();
            } catch (RuntimeException e) {
                LOG.error("engine {}: signal read failed", w.config().name(), e);
            }
        }, ThreadLocalRandom.current().nextLong(0, Math.min(every, 1000) + 1), every, TimeUnit.MILLISECONDS));
    }

    /** Stops reading the signals of {@code engine} and takes its series out of the hub; false when not read. */
    public synchronized boolean remove(String engine) {
        EngineSignalWatch w = watches.remove(engine);
        if (w == null) {
            return false;
        }
        java.util.concurrent.ScheduledFuture<?> f = tasks.remove(engine);
        if (f != null) {
            f.cancel(false);
        }
        w.retire();
        return true;
    }

    public EngineSignalWatch watch(String engine) {
        return watches.get(engine);
    }

    public List<EngineSignalWatch> watches() {
        synchronized (watches) {
            return List.copyOf(watches.values());
        }
    }

    /** A probe of {@code engine} completed; feeds the header-time estimate. Unknown engines are ignored. */
    public void onProbe(String engine, ProbeResult result) {
        onProbe(engine, result, false);
    }

    /** As {@link #onProbe(String, ProbeResult)}, for an engine that sends headers at admission into its batch or not. */
    public void onProbe(String engine, ProbeResult result, boolean headersAtAdmission) {
        EngineSignalWatch w = watches.get(engine);
        if (w != null && result != null) {
            w.onProbe(result, headersAtAdmission);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
