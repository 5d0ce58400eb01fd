package io.tailwatch.daemon.proxy;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.config.ProxyConfig;
import io.tailwatch.daemon.api.TlsListener;
import io.tailwatch.metrics.MetricHub;
import java.net.BindException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One engine's metering proxy: a listener of its own (its own Jetty server and thread pool, apart from the
 * agent's API, so neither can starve the other) that forwards every request to the engine. Its life is its
 * own: {@link #start}, {@link #reconfigure} (a new engine URL, key or lanes is taken without closing a
 * connection; a new listen address or bound needs a new proxy) and {@link #close}. A proxy that cannot
 * start is logged and left off; the agent's sampling and probes never wait on it.
 */
public final class EngineProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngineProxy.class);
    /** Request and response header bytes, each way. */
    static final int MAX_HEADER_BYTES = 16 * 1024;
    /** Bytes of body a connection buffers before it writes them on (each way). */
    static final int BUFFER_BYTES = 16 * 1024;

    private final ProxyConfig config;
    private final ProxyMeter meter;
    private final LiveWebConfig web;
    private final java.util.function.Supplier<io.tailwatch.daemon.api.ApiServer.HostCheck> hosts;
    private volatile MeteringProxyHandler.Upstream upstream;
    private Server server;
    private ServerConnector connector;

    public EngineProxy(EngineConfig engine, MetricHub hub, LiveWebConfig web) {
        this(engine, hub, web, () -> new io.tailwatch.daemon.api.ApiServer.HostCheck(java.util.List.of()));
    }

    /** {@code hosts}: the Host names the proxy answers to (any other is answered 421). */
    public EngineProxy(EngineConfig engine, MetricHub hub, LiveWebConfig web,
                       java.util.function.Supplier<io.tailwatch.daemon.api.ApiServer.HostCheck> hosts) {
        this.hosts = hosts;
        this.config = engine.proxy();
        this.meter = new ProxyMeter(engine.name(), hub);
        this.web = web;
        this.upstream = upstreamOf(engine);
        this.meter.lanes(new Lanes(config));
    }

    private static MeteringProxyHandler.Upstream upstreamOf(EngineConfig e) {
        return new MeteringProxyHandler.Upstream(e.url(), e.apiKey(), e.connectTimeout().toMillis(),
                e.proxy().connectionRest().toMillis());
    }

    /** Binds and starts; a failure (the port is taken) is thrown as {@link IllegalStateException} naming the address. */
    public synchronized EngineProxy start() {
        int max = config.maxConnections();
        // A request in flight holds a thread (the one that read it reads the engine's answer and writes it on), so
        // there is one for each of the max_connections clients, and a few for the acceptor, the selector and the
        // threads kept ready. Threads idle for 30 s end.
        QueuedThreadPool pool = new QueuedThreadPool(max + 6, 2, 30_000);
        pool.setName("tailwatch-proxy-" + meter.engine());
        // Two threads kept ready for the client side: the thread that read a request handles it itself while a
        // ready one takes over the selector.
        pool.setReservedThreads(2);
        pool.setDaemon(true);
        server = new Server(pool);
        // Its one handler is set before the start and never replaced, so the server takes the handler's invocation
        // type (a dynamic server would take every handler as blocking and hand each request to another thread).
        server.setDynamic(false);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendDateHeader(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(MAX_HEADER_BYTES);
        http.setResponseHeaderSize(MAX_HEADER_BYTES);
        http.setOutputBufferSize(BUFFER_BYTES);
        http.setIdleTimeout(config.idleTimeout().toMillis());
        boolean exposed = config.exposed();
        if (exposed && web != null && web.current().tls() != null) {
            connector = TlsListener.connector(server, http, web);
        } else {
            connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        }
        connector.setHost(config.host());
        connector.setPort(config.port());
        connector.setIdleTimeout(config.idleTimeout().toMillis());
        connector.setAcceptQueueSize(max);
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(max, server));
        HeadDeadline heads = new HeadDeadline(server.getScheduler(), HeadDeadline.MILLIS);
        connector.addEventListener(heads);
        // No limit on a body's length: it streams through in bounded buffers (an image upload, a long answer).
        server.setHandler(new MeteringProxyHandler(() -> upstream, meter, meter::lanes,
                exposed && web != null ? new ProxyGuard(web) : null, hosts, heads,
                new MeteringProxyHandler.Limits(max, config.idleTimeout().toMillis(), config.timeout().toMillis(), MAX_HEADER_BYTES)));
        server.setStopTimeout(2_000);
        try {
            server.start();
        } catch (Exception e) {
            stopQuietly();
            Throwable t = e;
            while (t != null && !(t instanceof BindException)) {
                t = t.getCause();
            }
            throw new IllegalStateException("the proxy of engine '" + meter.engine() + "' cannot listen on "
                    + config.listen() + ": " + (t != null ? t.getMessage() : e.toString()), e);
        }
        meter.open();
        LOG.info("engine '{}': metering proxy on {}{} -> {}", meter.engine(), exposed ? "https://" : "http://",
                io.tailwatch.core.config.HostPort.format(config.host(), port()), upstream.name());
        return this;
    }

    /**
     * Takes a changed engine (URL, key, connect timeout) without closing a connection: requests under way
     * finish where they started, the next go to the new URL. Returns false when the change needs a new proxy
     * (another listen address or bound, or the proxy was removed).
     */
    public boolean reconfigure(EngineConfig next) {
        if (!config.sameListener(next.proxy()) || !next.name().equals(meter.engine())) {
            return false;
        }
        upstream = upstreamOf(next);
        meter.lanes(new Lanes(next.proxy()));
        return true;
    }

    public int port() {
        return connector.getLocalPort();
    }

    public ProxyConfig config() {
        return config;
    }

    public ProxyMeter meter() {
        return meter;
    }

    /** The proxy's part of the engine's status. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("listen", io.tailwatch.core.config.HostPort.format(config.host(), connector == null ? config.port() : port()));
        m.put("upstream", upstream.name());
        m.putAll(meter.status());
        return m;
    }

    @Override
    public synchronized void close() {
        stopQuietly();
        meter.close();
    }

    private void stopQuietly() {
        if (server != null) {
            try {
                server.stop();
            } catch (Exception e) {
                LOG.warn("engine '{}': stopping the proxy: {}", meter.engine(), e.toString());
            }
        }
    }
}
