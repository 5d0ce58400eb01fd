package io.tailwatch.signals;

import io.tailwatch.config.EngineConfig;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.probe.ProbeResult;
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

    private final Map<String, EngineSignalWatch> watches = new LinkedHashMap<>();
    private ScheduledThreadPoolExecutor scheduler;

    public EngineSignalMonitor(List<EngineConfig> engines, MetricHub hub, Clock clock) {
        for (EngineConfig e : engines) {
            watches.put(e.name(), new EngineSignalWatch(e, hub, clock));
        }
    }

    public EngineSignalMonitor start() {
        List<EngineSignalWatch> active = new ArrayList<>();
        for (EngineSignalWatch w : watches.values()) {
            if (!"none".equals(w.config().signals().source())) {
                active.add(w);
            }
        }
        if (active.isEmpty()) {
            return this;
        }
        scheduler = new ScheduledThreadPoolExecutor(Math.min(4, active.size()), r -> {
            Thread t = new Thread(r, "tailwatch-signals");
            t.setDaemon(true);
            return t;
        });
        scheduler.setKeepAliveTime(60, TimeUnit.SECONDS);
        scheduler.allowCoreThreadTimeOut(true);
        for (EngineSignalWatch w : active) {
            long every = w.config().signals().interval().toMillis();
            scheduler.scheduleWithFixedDelay(() -> {
                try {
                    w.poll();
                } catch (RuntimeException e) {
                    LOG.error("engine {}: signal read failed", w.config().name(), e);
                }
            }, ThreadLocalRandom.current().nextLong(0, Math.min(every, 1000) + 1), every, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    public EngineSignalWatch watch(String engine) {
        return watches.get(engine);
    }

    public List<EngineSignalWatch> watches() {
        return List.copyOf(watches.values());
    }

    /** A probe of {@code engine} completed; feeds the header-time estimate. Unknown engines are ignored. */
    public void onProbe(String engine, ProbeResult result) {
        EngineSignalWatch w = watches.get(engine);
        if (w != null && result != null) {
            w.onProbe(result);
        }
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
