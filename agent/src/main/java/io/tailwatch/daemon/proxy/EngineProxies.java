package io.tailwatch.daemon.proxy;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.daemon.status.StatusContributor;
import io.tailwatch.metrics.MetricHub;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxies of the configured engines. One that cannot start (its port is taken) is logged and reported
 * in the status, and the rest of the agent runs on. {@link #reconfigure} keeps every proxy whose listener
 * is unchanged, with its open connections, and starts or stops the others.
 */
public final class EngineProxies implements StatusContributor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineProxies.class);

    private MetricHub hub;
    private LiveWebConfig web;
    private final Map<String, EngineProxy> running = new LinkedHashMap<>();
    private final Map<String, String> failed = new LinkedHashMap<>();

    /** The Host names the proxies answer to besides IP literals and localhost: the agent's server.allowed_hosts. */
    private volatile io.tailwatch.daemon.api.ApiServer.HostCheck hosts = new io.tailwatch.daemon.api.ApiServer.HostCheck(List.of());
    private volatile java.util.function.Function<String, String> served = name -> null;

    public EngineProxies(MetricHub hub, LiveWebConfig web) {
        this.hub = hub;
        this.web = web;
    }

    /**
     * The model each engine was started with, by engine name (null where not known): the proxies label an answer
     * to a request that named no model with it, never with the placeholder the answer echoes.
     */
    public EngineProxies servedModels(java.util.function.Function<String, String> byEngine) {
        this.served = byEngine;
        return this;
    }

    /** Names (server.allowed_hosts) the proxies' Host check lets through besides IP literals and localhost. */
    public EngineProxies allowHosts(List<String> names) {
        this.hosts = new io.tailwatch.daemon.api.ApiServer.HostCheck(names);
        return this;
    }

    /**
     * Hands the running proxies, with their open connections and counters, to the hub and web config of a
     * daemon started by a reload; {@link #reconfigure} then applies its engines.
     */
    public synchronized EngineProxies rebind(MetricHub nextHub, LiveWebConfig nextWeb) {
        this.hub = nextHub;
        this.web = nextWeb;
        for (EngineProxy p : running.values()) {
            p.meter().rebind(nextHub);
        }
        return this;
    }

    /** Starts the proxy of every engine that has one. */
    public synchronized EngineProxies start(List<EngineConfig> engines) {
        reconfigure(engines);
        return this;
    }

    /** Brings the proxies in line with {@code engines}: kept where the listener is the same, else replaced. */
    public synchronized void reconfigure(List<EngineConfig> engines) {
        Map<String, EngineConfig> wanted = new LinkedHashMap<>();
        for (EngineConfig e : engines) {
            if (e.proxy() != null) {
                wanted.put(e.name(), e);
            }
        }
        for (String name : new ArrayList<>(running.keySet())) {
            EngineConfig next = wanted.get(name);
            EngineProxy p = running.get(name);
            if (next == null || !p.reconfigure(next)) {
                running.remove(name).close();
            }
        }
        failed.clear();
        for (EngineConfig e : wanted.values()) {
            if (running.containsKey(e.name())) {
                continue;
            }
            EngineProxy proxy = new EngineProxy(e, hub, web, () -> hosts);
            String name = e.name();
            proxy.meter().servedModel(() -> served.apply(name));
            try {
                running.put(e.name(), proxy.start());
            } catch (RuntimeException ex) {
                // Nothing of a proxy that did not start stays behind: no listener, no series.
                proxy.close();
                failed.put(e.name(), ex.getMessage());
                LOG.error("{}; the agent runs on without it", ex.getMessage());
            }
        }
    }

    /** Publishes every proxy's counters (at each host sample). */
    public synchronized void publish() {
        for (EngineProxy p : running.values()) {
            p.meter().publish();
        }
    }

    /** Each running proxy's output tokens so far, by engine. */
    public synchronized Map<String, Long> outputTokens() {
        Map<String, Long> out = new LinkedHashMap<>();
        running.forEach((name, p) -> out.put(name, p.meter().outputTokens()));
        return out;
    }

    public synchronized EngineProxy proxy(String engine) {
        return running.get(engine);
    }

    @Override
    public String name() {
        return "proxies";
    }

    @Override
    public synchronized Object status() {
        List<Map<String, Object>> out = new ArrayList<>();
        running.forEach((name, p) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("engine", name);
            m.put("state", "running");
            m.putAll(p.status());
            out.add(m);
        });
        failed.forEach((name, why) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("engine", name);
            m.put("state", "failed");
            m.put("error", why);
            out.add(m);
        });
        return out;
    }

    @Override
    public synchronized void close() {
        for (EngineProxy p : running.values()) {
            p.close();
        }
        running.clear();
    }
}
