package io.tailwatch.daemon;

import io.tailwatch.core.config.DiscoveryConfig;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.daemon.engine.EngineDiscovery;
import io.tailwatch.daemon.engine.EngineMonitor;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import io.tailwatch.daemon.status.StatusContributor;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code engines: auto}: checks this host's loopback ports at start and every discovery interval and
 * watches every engine found (probes, health, engine-side signals), with the defaults of an engine
 * configured without options. An engine found once stays watched until the agent restarts: one that
 * was up and goes down is EngineDown like a configured one. Nothing found means nothing watched, so
 * nothing can page. One thread; each check is bounded by the discovery deadlines.
 */
final class AutoEngines implements AutoCloseable, StatusContributor {
    private static final Logger LOG = LoggerFactory.getLogger(AutoEngines.class);
    static final String HOST = "127.0.0.1";

    private volatile DiscoveryConfig config;
    /** The names of the engines this discovery added to the monitor. */
    private final java.util.Set<String> discovered = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private java.util.concurrent.ScheduledFuture<?> task;
    private final EngineMonitor engines;
    private final EngineSignalMonitor signals;
    private final Clock clock;
    private final Function<List<Integer>, List<EngineDiscovery.Found>> scanner;
    private ScheduledThreadPoolExecutor scheduler;
    private volatile Instant lastCheck;
    private volatile List<Map<String, Object>> lastFound = List.of();
    private volatile String lastError;

    AutoEngines(DiscoveryConfig config, EngineMonitor engines, EngineSignalMonitor signals, Clock clock,
                Function<List<Integer>, List<EngineDiscovery.Found>> scanner) {
        this.config = config;
        this.engines = engines;
        this.signals = signals;
        this.clock = clock;
        this.scanner = scanner;
    }

    AutoEngines start() {
        scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tailwatch-discovery");
            t.setDaemon(true);
            return t;
        });
        LOG.info("engines: auto; checking ports {} now and every {}", ports(), io.tailwatch.core.units.Units.format(config.interval()));
        schedule(0);
        return this;
    }

    private synchronized void schedule(long firstDelayMillis) {
        if (task != null) {
            task.cancel(false);
        }
        task = scheduler.scheduleWithFixedDelay(this::checkGuarded, firstDelayMillis, config.interval().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    DiscoveryConfig config() {
        return config;
    }

    /** The names of the engines discovery found and watches. */
    java.util.Set<String> added() {
        return java.util.Set.copyOf(discovered);
    }

    /** A reload changed the discovery settings: they apply from a check now on. */
    void reconfigure(DiscoveryConfig next) {
        config = next;
        LOG.info("engines: auto; checking ports {} now and every {}", ports(), io.tailwatch.core.units.Units.format(next.interval()));
        schedule(0);
    }

    /** A reload (changed or not): discovery runs again now. */
    void reloaded() {
        if (scheduler != null) {
            scheduler.execute(this::checkGuarded);
        }
    }

    List<Integer> ports() {
        return config.allPorts(EngineDiscovery.WELL_KNOWN_PORTS);
    }

    private void checkGuarded() {
        try {
            check();
            lastError = null;
        } catch (RuntimeException e) {
            lastError = e.toString();
            LOG.warn("engine discovery failed: {}", e.toString());
        }
    }

    /** One check: scans the ports and adds every engine not watched yet. Returns the names added. */
    synchronized List<String> check() {
        List<EngineDiscovery.Found> found = scanner.apply(ports());
        List<EngineConfig> configs = EngineDiscovery.engines(found);
        List<String> added = new ArrayList<>();
        List<Map<String, Object>> seen = new ArrayList<>();
        for (EngineConfig e : configs) {
            String watchedAs = watchedNameOf(e);
            if (watchedAs == null) {
                EngineConfig named = engines.watch(e.name()) == null ? e : renamed(e, e.name() + "-" + e.port());
                if (engines.add(named)) {
                    discovered.add(named.name());
                    signals.add(named);
                    added.add(named.name());
                    watchedAs = named.name();
                    LOG.info("engines: auto found {} at {} ({}); watching it", named.name(), named.url(), named.api());
                }
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", watchedAs);
            m.put("url", e.url().toString());
            m.put("api", e.api());
            seen.add(m);
        }
        lastFound = List.copyOf(seen);
        lastCheck = clock.instant();
        return added;
    }

    private String watchedNameOf(EngineConfig e) {
        for (var w : engines.watches()) {
            if (w.config().url().equals(e.url())) {
                return w.config().name();
            }
        }
        return null;
    }

    private static EngineConfig renamed(EngineConfig e, String name) {
        return e.withName(name);
    }

    @Override
    public String name() {
        return "discovery";
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engines", "auto");
        m.put("ports", ports());
        m.put("interval", io.tailwatch.core.units.Units.format(config.interval()));
        m.put("last_check", lastCheck);
        m.put("last_found", lastFound);
        m.put("watching", engines.watches().stream().map(w -> w.config().name()).toList());
        if (lastError != null) {
            m.put("error", lastError);
        }
        return m;
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
