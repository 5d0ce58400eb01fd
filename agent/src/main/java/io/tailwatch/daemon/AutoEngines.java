package io.tailwatch.daemon;

import io.tailwatch.core.config.DiscoveryConfig;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.daemon.engine.EngineDiscovery;
import io.tailwatch.daemon.engine.EngineMonitor;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import io.tailwatch.daemon.status.StatusContributor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code engines: auto}: checks this host's loopback ports and watches every engine found (probes,
 * health, engine-side signals), with the defaults of an engine configured without options. Checks run
 * often right after start, after a reload and after a port opens (15 s, then 30 s, 1 m, 2 m, ... up to
 * the discovery interval), and every {@code discovery.port_watch} (15 s by default) a TCP connect (nothing
 * sent) tells which ports are open: a port that opens is checked at once, so an engine started later is
 * found within about one port watch without HTTP requests to every port each time. An engine found once stays watched: one that
 * was up and goes down is EngineDown like a configured one (it may have crashed). A reload runs discovery
 * again and forgets the found engines that are no longer there (their series go, their alerts resolve):
 * that is how an operator says an engine is gone on purpose. Nothing found means nothing watched, so
 * nothing can page. One thread; each check is bounded by the discovery deadlines.
 */
final class AutoEngines implements AutoCloseable, StatusContributor {
    private static final Logger LOG = LoggerFactory.getLogger(AutoEngines.class);
    static final String HOST = "127.0.0.1";
    static final int PORT_CONNECT_TIMEOUT_MILLIS = 200;

    private volatile DiscoveryConfig config;
    private final EngineMonitor engines;
    private final EngineSignalMonitor signals;
    private final Clock clock;
    private final Function<List<Integer>, List<EngineDiscovery.Found>> scanner;
    /** Told of every engine added, so the process sampler finds its memory as for a listed one. */
    private final java.util.function.Consumer<EngineConfig> onAdded;
    private final Function<List<Integer>, Set<Integer>> openPorts;
    /** The names of the engines this discovery added to the monitor. */
    private final Set<String> discovered = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private ScheduledThreadPoolExecutor scheduler;
    private volatile Instant lastCheck;
    private volatile Instant nextCheck;
    /** The wait after the next check: doubles after each, from the port watch up to the interval. */
    private volatile Duration backoff;
    private volatile Set<Integer> open;
    private volatile boolean forgetAtNextCheck;
    private volatile List<Map<String, Object>> lastFound = List.of();
    private volatile List<String> missing = List.of();
    private volatile String lastError;

    AutoEngines(DiscoveryConfig config, EngineMonitor engines, EngineSignalMonitor signals, Clock clock,
                Function<List<Integer>, List<EngineDiscovery.Found>> scanner) {
        this(config, engines, signals, clock, scanner, e -> { });
    }

    AutoEngines(DiscoveryConfig config, EngineMonitor engines, EngineSignalMonitor signals, Clock clock,
                Function<List<Integer>, List<EngineDiscovery.Found>> scanner,
                java.util.function.Consumer<EngineConfig> onAdded) {
        this(config, engines, signals, clock, scanner, AutoEngines::openPorts, onAdded);
    }

    AutoEngines(DiscoveryConfig config, EngineMonitor engines, EngineSignalMonitor signals, Clock clock,
                Function<List<Integer>, List<EngineDiscovery.Found>> scanner, Function<List<Integer>, Set<Integer>> openPorts) {
        this(config, engines, signals, clock, scanner, openPorts, e -> { });
    }

    AutoEngines(DiscoveryConfig config, EngineMonitor engines, EngineSignalMonitor signals, Clock clock,
                Function<List<Integer>, List<EngineDiscovery.Found>> scanner, Function<List<Integer>, Set<Integer>> openPorts,
                java.util.function.Consumer<EngineConfig> onAdded) {
        this.onAdded = onAdded;
        this.config = config;
        this.engines = engines;
        this.signals = signals;
        this.clock = clock;
        this.scanner = scanner;
        this.openPorts = openPorts;
        this.backoff = config.portWatch();
    }

    AutoEngines start() {
        scheduler = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tailwatch-discovery");
            t.setDaemon(true);
            return t;
        });
        LOG.info("engines: auto; checking ports {} now, often at first, then every {}; a port that opens is checked"
                + " within {}", ports(), io.tailwatch.core.units.Units.format(config.interval()),
                io.tailwatch.core.units.Units.format(config.portWatch()));
        nextCheck = clock.instant();
        scheduler.execute(this::watch);
        return this;
    }

    /** One look at the ports, then the next one a port watch later (as configured now: a reload may change it). */
    private void watch() {
        tick();
        try {
            scheduler.schedule(this::watch, config.portWatch().toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    /** The ports of {@code ports} that accept a TCP connection on loopback now (nothing is sent). */
    static Set<Integer> openPorts(List<Integer> ports) {
        Set<Integer> out = new java.util.TreeSet<>();
        for (int p : ports) {
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new java.net.InetSocketAddress(HOST, p), PORT_CONNECT_TIMEOUT_MILLIS);
                out.add(p);
            } catch (java.io.IOException e) {
                // closed (refused) or not answering: not open
            }
        }
        return out;
    }

    /** One look at the ports; a check when one is due or a port opened since the last look. */
    private void tick() {
        try {
            Set<Integer> now = openPorts.apply(ports());
            Set<Integer> before = open;
            open = Set.copyOf(now);
            boolean opened = before != null && !before.containsAll(now);
            if (opened) {
                backoff = config.portWatch();
            }
            if (opened || !clock.instant().isBefore(nextCheck)) {
                boolean forget = forgetAtNextCheck;
                forgetAtNextCheck = false;
                check(forget);
                lastError = null;
            }
        } catch (RuntimeException e) {
            lastError = e.toString();
            LOG.warn("engine discovery failed: {}", e.toString());
        }
    }

    DiscoveryConfig config() {
        return config;
    }

    /** The names of the engines discovery found and watches. */
    Set<String> added() {
        return Set.copyOf(discovered);
    }

    /** A reload changed the discovery settings: they apply from a check now on (which forgets what is gone). */
    void reconfigure(DiscoveryConfig next) {
        config = next;
        LOG.info("engines: auto; checking ports {} now and every {}", ports(), io.tailwatch.core.units.Units.format(next.interval()));
        reloaded();
    }

    /** A reload (changed or not): discovery runs again now, forgets found engines no longer there, then checks often again. */
    void reloaded() {
        forgetAtNextCheck = true;
        backoff = config.portWatch();
        nextCheck = clock.instant();
        if (scheduler != null) {
            try {
                scheduler.execute(this::tick);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }
    }

    List<Integer> ports() {
        return config.allPorts(EngineDiscovery.WELL_KNOWN_PORTS);
    }

    /** One check: scans the ports and adds every engine not watched yet. Returns the names added. */
    List<String> check() {
        return check(false);
    }

    /**
     * One check; with {@code forget} (a reload) the engines discovery found before and that no longer answer
     * as engines are forgotten: no longer watched, their series gone, so their alerts resolve.
     */
    synchronized List<String> check(boolean forget) {
        List<EngineDiscovery.Found> found = scanner.apply(ports());
        List<EngineConfig> configs = EngineDiscovery.engines(found, System.getenv(), config.healthInterval());
        List<String> added = new ArrayList<>();
        List<Map<String, Object>> seen = new ArrayList<>();
        for (EngineConfig e : configs) {
            String watchedAs = watchedNameOf(e);
            if (watchedAs == null) {
                EngineConfig named = engines.watch(e.name()) == null ? e : renamed(e, e.name() + "-" + e.port());
                if (engines.add(named)) {
                    discovered.add(named.name());
                    signals.add(named);
                    onAdded.accept(named);
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
        Set<String> there = new java.util.HashSet<>();
        for (Map<String, Object> m : seen) {
            there.add(String.valueOf(m.get("name")));
        }
        List<String> gone = new ArrayList<>();
        for (String name : new java.util.TreeSet<>(discovered)) {
            if (there.contains(name)) {
                continue;
            }
            var w = engines.watch(name);
            if (forget) {
                engines.remove(name);
                signals.remove(name);
                discovered.remove(name);
                LOG.info("engines: auto: {} at {} is no longer there; forgotten at the reload (no longer watched, its alerts"
                        + " resolve)", name, w == null ? "?" : io.tailwatch.core.logging.Redact.url(w.config().url()));
            } else {
                gone.add(name);
            }
        }
        missing = List.copyOf(gone);
        lastFound = List.copyOf(seen);
        lastCheck = clock.instant();
        Duration wait = backoff;
        nextCheck = lastCheck.plus(wait);
        Duration doubled = wait.multipliedBy(2);
        backoff = doubled.compareTo(config.interval()) > 0 ? config.interval() : doubled;
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
        m.put("next_check", nextCheck);
        m.put("port_watch", io.tailwatch.core.units.Units.format(config.portWatch()));
        m.put("last_found", lastFound);
        m.put("watching", engines.watches().stream().map(w -> w.config().name()).toList());
        // Found before, not there at the last check: still paged (it may have crashed) until a reload forgets it.
        m.put("missing", missing);
        m.put("forget", "a reload (SIGHUP to process " + ProcessHandle.current().pid() + ") runs discovery again and forgets"
                + " found engines that are no longer there");
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
