package io.tailwatch.daemon.api;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.tailwatch.core.json.Json;
import io.tailwatch.daemon.status.StatusContributor;
import io.tailwatch.metrics.PrometheusExporter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.server.LowResourceMonitor;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The agent's HTTP surface: /metrics (Prometheus text or OpenMetrics), /healthz, and /api/*
 * (bearer-token protected when a token is configured). Handlers only read the latest state.
 */
public final class ApiServer implements AutoCloseable {
    /** Health of the sampling loop: null when healthy, else the reason. */
    public interface Health {
        String problem();
    }

    /**
     * A blocked response write fails after this long and closes its connection (Jetty's idle timeout
     * bounds blocking writes): a client that does not read holds a thread at most this long.
     */
    public static final long WRITE_TIMEOUT_MILLIS = 5_000;
    /**
     * Within a lane the bound is tighter: a whole /metrics or /api answer goes out in microseconds to a
     * client that reads (loopback) and in milliseconds over a LAN.
     */
    static final long LANE_WRITE_TIMEOUT_MILLIS = 1_000;
    /** Responses other than /healthz written at once; the rest of the pool stays free for /healthz. */
    static final int BULK_LANES = 4;
    /**
     * A connection that has carried this many requests is closed after the current answer: a normal
     * client reconnects unnoticed (Prometheus every 100 scrapes), a client that pipelines thousands of
     * requests gets 100 answers, not thousands, and gives the threads back.
     */
    static final long MAX_REQUESTS_PER_CONNECTION = 100;
    /** How long a request waits for a free lane before its connection is closed unanswered. */
    static final long LANE_WAIT_MILLIS = 500;
    private static final String LANE = "tailwatch.lane";

    /** A rendered exposition is served again for this long (the host interval is seconds). */
    static final long SCRAPE_REUSE_NANOS = 500_000_000L;
    /**
     * The largest exposition kept for reuse. A few engines render well below it; a larger exposition is
     * streamed from the exporter's kept series lines at each scrape rather than copied whole, which at the
     * largest configuration held about 4 MiB (text and OpenMetrics) of the 24 MiB heap.
     */
    static final long SCRAPE_REUSE_MAX_BYTES = 512 << 10;

    /**
     * What the server is made of, gathered before it starts: Javalin 7 takes every route and before-handler
     * in its config block, so they are collected here and applied in {@link #start}.
     */
    private final List<Consumer<RoutesConfig>> setup = new java.util.ArrayList<>();
    private Javalin app;
    private final java.util.concurrent.Semaphore bulk = new java.util.concurrent.Semaphore(BULK_LANES);
    private volatile String listenHost;
    private volatile int listenPort;
    /** The web config when it serves HTTPS, else null (plain HTTP). */
    private volatile io.tailwatch.core.config.LiveWebConfig tls;

    /**
     * What each endpoint serves, for the landing page at /. The page lists the routes actually
     * registered (in registration order), each with its line from here; a route without one is listed
     * as undescribed, and LandingPageTest holds the daemon's routes and this list equal.
     */
    public static final Map<String, String> ENDPOINTS = endpoints(
            "/metrics", "Prometheus text exposition (OpenMetrics when the Accept header asks for it)",
            "/healthz", "200 ok while host sampling runs, 503 with the reason when it stalls",
            "/ui/", "status page: host signals, engines, alerts",
            "/api/v1/status", "the agent's state as JSON (bearer token when one is configured)",
            "/api/v1/alerts", "alert instances as JSON (bearer token when one is configured)",
            "/api/v1/history", "the status page's last hour of moving signals as JSON (bearer token when one is configured)",
            "/api/v1/engines/{name}/restart", "POST: runbook restart of an engine (needs its token)",
            "/api/v1/engines/{name}/ready", "200 when the engine can take one more request within its SLO, 503 with the reasons when not (docs/routing.md)");
    /** Marks a registered route that {@link #ENDPOINTS} does not describe. */
    public static final String UNDESCRIBED = "(undescribed)";

    private static Map<String, String> endpoints(String... pathThenWhat) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pathThenWhat.length; i += 2) {
            m.put(pathThenWhat[i], pathThenWhat[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /** GET and POST routes in the order they were added, without / itself and the status page's files. */
    private final List<String[]> routes = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** A static page (no input reaches it), like the landing page of node_exporter; made at the first request. */
    private volatile String landing;

    /** The routes this server answers (method and path), as the landing page lists them. */
    List<String[]> routes() {
        return List.copyOf(routes);
    }

    private void routeAdded(io.javalin.event.HandlerMetaInfo info) {
        String method = info.getHttpMethod().name();
        String path = info.getPath();
        if ((method.equals("GET") || method.equals("POST")) && !path.equals("/")
                && !(path.startsWith(StatusPage.PATH) && path.length() > StatusPage.PATH.length())) {
            routes.add(new String[] {method, path});
            landing = null;
        }
    }

    private String landing() {
        String page = landing;
        if (page == null) {
            page = landing(routes);
            landing = page;
        }
        return page;
    }

    static String landing(List<String[]> routes) {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>tailwatch</title></head>\n<body>\n<h1>tailwatch</h1>\n"
                + "<p>Host and LLM-engine signals for Prometheus and OpenTelemetry.</p>\n<ul>\n");
        for (String[] r : routes) {
            String path = r[1];
            String what = ENDPOINTS.getOrDefault(path, UNDESCRIBED);
            boolean link = r[0].equals("GET") && !path.contains("{");
            b.append("<li>").append(link ? "<a href=\"" + path + "\">" : "").append("<code>").append(path.replace("{", "&#123;").replace("}", "&#125;"))
                    .append("</code>").append(link ? "</a>" : "").append(": ").append(what).append("</li>\n");
        }
        return b.append("</ul>\n</body></html>\n").toString();
    }

    public ApiServer(PrometheusExporter prometheus, Health health, List<StatusContributor> status, String authToken,
                     List<Consumer<RoutesConfig>> extraRoutes, Supplier<String> version) {
        this(prometheus, health, status, authToken, List.of(), extraRoutes, version);
    }

    /**
     * {@code allowedHosts}: names besides IP literals and localhost that the Host header may carry; any
     * other name is answered 421 (a page on another site cannot read the API through DNS rebinding).
     */
    public ApiServer(PrometheusExporter prometheus, Health health, List<StatusContributor> status, String authToken,
                     List<String> allowedHosts, List<Consumer<RoutesConfig>> extraRoutes, Supplier<String> version) {
        setup.add(app -> routes(app, prometheus, health, status, authToken, allowedHosts, extraRoutes, version));
    }

    private void routes(RoutesConfig app, PrometheusExporter prometheus, Health health, List<StatusContributor> status,
                        String authToken, List<String> allowedHosts, List<Consumer<RoutesConfig>> extraRoutes,
                        Supplier<String> version) {
        HostCheck hosts = new HostCheck(allowedHosts);
        app.before(ctx -> {
            // The name in an absolute-form request line (GET http://name/ HTTP/1.0, with or without a Host
            // header) is the one the request is for: Jetty gives it as the server name, so both are checked.
            if (!hosts.allowed(ctx.header("Host")) || !hosts.allowed(HostCheck.literal(ctx.req().getServerName()))) {
                ctx.status(421).contentType("text/plain; charset=utf-8")
                        .result("misdirected request: this agent does not answer to that Host name "
                                + "(add it to server.allowed_hosts)\n");
                ctx.skipRemainingHandlers();
                return;
            }
            ctx.attribute(LANE, bulk);
        });
        app.get("/", ctx -> {
            ctx.contentType("text/html; charset=utf-8");
            ctx.result(landing());
        });
        // Up to SCRAPE_REUSE_MAX_BYTES, one rendering per format and SCRAPE_REUSE_NANOS serves every scrape in
        // that time: a client that pipelines /metrics costs bytes to write, not a rendering each (a larger
        // exposition is written from the exporter's kept series lines, at most four at once: the lanes). The body is streamed to the
        // response as it is rendered (never built whole: see ScrapeReplay).
        io.tailwatch.metrics.ScrapeReplay scrapes = new io.tailwatch.metrics.ScrapeReplay(prometheus, SCRAPE_REUSE_NANOS,
                SCRAPE_REUSE_MAX_BYTES);
        app.get("/metrics", ctx -> {
            String accept = ctx.header("Accept");
            stream(ctx, prometheus.contentType(accept), out -> scrapes.writeTo(accept, out));
        });
        app.get("/healthz", ctx -> {
            String problem = health.problem();
            ctx.contentType("text/plain; charset=utf-8");
            if (problem == null) {
                ctx.status(200).result("ok\n");
            } else {
                ctx.status(503).result(problem + "\n");
            }
        });
        if (authToken != null) {
            byte[] expected = authToken.getBytes(StandardCharsets.UTF_8);
            app.before("/api/*", ctx -> {
                byte[] got = bearer(ctx.header("Authorization")).getBytes(StandardCharsets.UTF_8);
                if (!MessageDigest.isEqual(expected, got) && !readOnly.allows(ctx.method().name(), ctx.path(), got)) {
                    ctx.header("WWW-Authenticate", "Bearer");
                    json(ctx.status(401), Map.of("error", "missing or wrong bearer token"));
                    ctx.skipRemainingHandlers();
                }
            });
        }
        app.get("/api/v1/status", ctx -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("time", Instant.now());
            body.put("version", version.get());
            for (StatusContributor c : status) {
                body.put(c.name(), c.status());
            }
            json(ctx, body);
        });
        for (Consumer<RoutesConfig> r : extraRoutes) {
            r.accept(app);
        }
    }

    /** A second token that opens only some GET routes (a router's health checks), or none. */
    private record ReadOnlyToken(byte[] token, java.util.function.Predicate<String> paths) {
        static final ReadOnlyToken NONE = new ReadOnlyToken(null, p -> false);

        boolean allows(String method, String path, byte[] got) {
            return token != null && method.equals("GET") && paths.test(path) && MessageDigest.isEqual(token, got);
        }
    }

    private volatile ReadOnlyToken readOnly = ReadOnlyToken.NONE;

    /** Accepts {@code token} for GET requests to the paths {@code paths} admits, beside the server's own; call before {@link #start}. */
    public ApiServer withReadOnlyToken(String token, java.util.function.Predicate<String> paths) {
        readOnly = token == null ? ReadOnlyToken.NONE : new ReadOnlyToken(token.getBytes(StandardCharsets.UTF_8), paths);
        return this;
    }

    public static void json(Context ctx, Object body) {
        write(ctx, "application/json", () -> Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Renders and writes a whole response inside the handler, holding one of the {@link #BULK_LANES} lanes
     * while it is rendered and while the bytes go out and with the write bounded by {@link #LANE_WRITE_TIMEOUT_MILLIS}, so clients that do not
     * read hold at most that many threads for at most that long, and /healthz (which needs no lane) always
     * finds one. No free lane within {@link #LANE_WAIT_MILLIS}: the connection is closed unanswered (an
     * answer could block on the same full socket).
     */
    static void write(Context ctx, String contentType, Supplier<byte[]> render) {
        serve(ctx, contentType, render, null);
    }

    /** Writes a response body straight to the output stream, as {@link #write} does with a whole one. */
    interface Body {
        void writeTo(java.io.OutputStream out) throws java.io.IOException;
    }

    /**
     * Like {@link #write}, but the body is written to the response as it is produced (chunked: its
     * length is not known before), through Jetty's output buffer and, when the client asks for gzip, a
     * deflater of its own: nothing holds the whole body.
     */
    static void stream(Context ctx, String contentType, Body body) {
        serve(ctx, contentType, null, body);
    }

    /**
     * gzip onto the response without closing it; {@link #end()} frees the deflater's native memory now.
     * Fastest level: an exposition repeats the same label sets line after line, where zlib's default
     * level spends about twice the CPU of the fastest (2.7 against 1.2 ms on a 2,000-series, 620 KB
     * scrape) for a body a quarter smaller (16 against 21 KB); docs/performance.md, "Scrape scaling".
     */
    private static final class Gzip extends java.util.zip.GZIPOutputStream {
        Gzip(java.io.OutputStream out) throws java.io.IOException {
            super(out, 8192);
            def.setLevel(java.util.zip.Deflater.BEST_SPEED);
        }

        void end() {
            def.end();
        }
    }

    private static void serve(Context ctx, String contentType, Supplier<byte[]> render, Body streamed) {
        java.util.concurrent.Semaphore lane = ctx.attribute(LANE);
        org.eclipse.jetty.ee10.servlet.ServletContextRequest base =
                org.eclipse.jetty.ee10.servlet.ServletContextRequest.getServletContextRequest(ctx.req());
        org.eclipse.jetty.io.EndPoint endPoint = base == null ? null
                : base.getConnectionMetaData().getConnection().getEndPoint();
        boolean held = false;
        long idle = endPoint == null ? 0 : endPoint.getIdleTimeout();
        try {
            if (lane != null) {
                held = lane.tryAcquire(LANE_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                if (!held) {
                    if (endPoint != null) {
                        endPoint.close();
                    }
                    return;
                }
            }
            byte[] body = streamed == null ? render.get() : null;
            // Written past Javalin's own compression: gzip here when asked (Prometheus always asks; a
            // scrape is about 13x smaller on the wire, see docs/fleet.md).
            String acceptEncoding = ctx.header("Accept-Encoding");
            boolean gzip = acceptEncoding != null && acceptEncoding.toLowerCase(java.util.Locale.ROOT).contains("gzip")
                    && (body == null || body.length > 1024);
            if (body != null && gzip) {
                java.io.ByteArrayOutputStream zipped = new java.io.ByteArrayOutputStream(body.length / 8 + 64);
                try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(zipped)) {
                    gz.write(body);
                }
                body = zipped.toByteArray();
            }
            if (gzip) {
                ctx.header("Content-Encoding", "gzip");
            }
            ctx.header("Vary", "Accept-Encoding");
            org.eclipse.jetty.io.Connection connection = base == null ? null : base.getConnectionMetaData().getConnection();
            if (connection != null && connection.getMessagesIn() >= MAX_REQUESTS_PER_CONNECTION) {
                ctx.header("Connection", "close");
            }
            if (endPoint != null) {
                endPoint.setIdleTimeout(LANE_WRITE_TIMEOUT_MILLIS);
            }
            ctx.contentType(contentType);
            if (body != null) {
                ctx.res().setContentLength(body.length);
                ctx.res().getOutputStream().write(body);
            } else if (gzip) {
                Gzip gz = new Gzip(ctx.res().getOutputStream());
                try {
                    streamed.writeTo(gz);
                    gz.finish();
                } finally {
                    gz.end();
                }
            } else {
                streamed.writeTo(ctx.res().getOutputStream());
            }
            ctx.res().flushBuffer();
            if (endPoint != null) {
                endPoint.setIdleTimeout(idle);
            }
        } catch (java.io.IOException e) {
            // The client went away or did not read in time: Jetty closes the connection.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (held) {
                lane.release();
            }
        }
    }

    /**
     * The server settings that keep Javalin small: few threads (one selector that also accepts, workers on
     * demand that end after 30 s idle, none pre-started: scrapes are rare, memory is the budget), no
     * banner, and no low-resources monitor (a thread that wakes every second, of no use to a
     * loopback scrape endpoint with a bounded pool). The pool hands each job to the thread that became idle
     * last ({@link LastIdleFirstQueue}): a request after a pause runs on the thread that served the one before,
     * and the threads a burst started end after their idle timeout. Public for the footprint benchmark,
     * which measures Javalin with exactly these settings.
     */
    public static void smallServer(io.javalin.config.JavalinConfig cfg) {
        cfg.startup.showJavalinBanner = false;
        cfg.startup.showOldJavalinVersionWarning = false;
        // Javalin's watcher is a thread that sleeps 5 s after create() to say the server was never started.
        cfg.startup.startupWatcherEnabled = false;
        cfg.jetty.threadPool = threadPool();
        cfg.concurrency.useVirtualThreads = false;
        cfg.jetty.modifyServer(server -> server.getBeans(LowResourceMonitor.class).forEach(server::removeBean));
    }

    /** Threads of the listener's pool at most (its selector among them). */
    static final int POOL_MAX_THREADS = 8;
    /** A pool thread idle this long ends (down to one). */
    static final int POOL_IDLE_TIMEOUT_MILLIS = 30_000;

    /** The listener's pool (not started): see {@link #smallServer}. */
    static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(POOL_MAX_THREADS, 1, POOL_IDLE_TIMEOUT_MILLIS, 0,
                new LastIdleFirstQueue(), null);
        pool.setReservedThreads(0);
        pool.setName("tailwatch-http");
        pool.setDaemon(true);
        return pool;
    }

    /**
     * A plain-HTTP connector with no acceptor thread: its selector accepts the connections too, so a
     * request on a new connection (as a scraper makes every 15 s) wakes one thread less.
     */
    static ServerConnector plainConnector(org.eclipse.jetty.server.Server server,
            org.eclipse.jetty.server.HttpConfiguration http) {
        return new ServerConnector(server, 0, 1, new org.eclipse.jetty.server.HttpConnectionFactory(http));
    }

    /**
     * Applies the exporter-toolkit web config: HTTPS when it has tls_server_config, and {@code guard}
     * (basic auth and response headers) before every handler. Call before {@link #start}.
     */
    public ApiServer withWebConfig(io.tailwatch.core.config.LiveWebConfig web, io.javalin.http.Handler guard) {
        setup.add(app -> app.before(guard));
        if (web.current().tls() != null) {
            tls = web;
        }
        return this;
    }

    /** Binds and starts; throws {@link BindFailure} when the address cannot be bound. */
    public ApiServer start(String host, int port) {
        try {
            listenHost = host;
            listenPort = port;
            app = Javalin.create(cfg -> {
                smallServer(cfg);
                io.tailwatch.core.config.LiveWebConfig web = tls;
                cfg.jetty.addConnector((server, http) -> {
                    ServerConnector c = web != null ? TlsListener.connector(server, http, web) : plainConnector(server, http);
                    c.setHost(listenHost);
                    c.setPort(listenPort);
                    return c;
                });
                cfg.events.handlerAdded(this::routeAdded);
                setup.forEach(s -> s.accept(cfg.routes));
            });
            app.start(host, port);
        } catch (RuntimeException e) {
            Throwable t = e;
            java.io.IOException io = null;
            while (t != null) {
                if (t instanceof java.net.BindException b) {
                    throw new BindFailure(host, port, bindReason(b));
                }
                if (io == null && t instanceof java.io.IOException i) {
                    io = i;
                }
                t = t.getCause();
            }
            if (io != null) {
                throw new BindFailure(host, port, io.getMessage());
            }
            throw e;
        }
        for (org.eclipse.jetty.server.Connector c : app.jettyServer().server().getConnectors()) {
            if (c instanceof org.eclipse.jetty.server.AbstractConnector a) {
                a.setIdleTimeout(WRITE_TIMEOUT_MILLIS);
            }
        }
        return this;
    }

    /** Jetty's "Failed to bind to /127.0.0.1:9531" drops the OS's reason; say it in words. */
    static String bindReason(java.net.BindException b) {
        String m = String.valueOf(b.getMessage());
        for (Throwable t = b.getCause(); t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                m = m + ": " + t.getMessage();
            }
        }
        String low = m.toLowerCase(java.util.Locale.ROOT);
        if (low.contains("in use")) {
            return "address already in use (another tailwatch, or another program, listens there)";
        }
        if (low.contains("assign") || low.contains("not available")) {
            return "address not available on this host (" + m + ")";
        }
        if (low.contains("permission")) {
            return "permission denied (" + m + ")";
        }
        return m;
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        if (app != null) {
            app.stop();
        }
    }

    /** The listen address could not be bound (in use, not local, no permission). */
    public static final class BindFailure extends RuntimeException {
        public BindFailure(String host, int port, String why) {
            super("cannot listen on " + io.tailwatch.core.config.HostPort.format(host, port) + ": " + why);
        }
    }

    /**
     * The token of an {@code Authorization: Bearer} header; the scheme is case-insensitive (RFC 9110
     * 11.1), so {@code bearer} and {@code BEARER} work too. Empty when there is none.
     */
    static String bearer(String header) {
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return "";
        }
        return header.substring(7).strip();
    }

    /** The Host header check against DNS rebinding: IP literals, localhost and the configured names pass. */
    public static final class HostCheck {
        private static final java.util.regex.Pattern IPV6 = java.util.regex.Pattern.compile("[0-9a-f:.]+");
        private static final java.util.regex.Pattern IPV4 = java.util.regex.Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
        private final java.util.Set<String> names;

        public HostCheck(List<String> allowed) {
            java.util.Set<String> n = new java.util.HashSet<>();
            n.add("localhost");
            for (String a : allowed) {
                n.add(a.toLowerCase(java.util.Locale.ROOT));
            }
            this.names = java.util.Set.copyOf(n);
        }

        /** A server name as a Host value: an IPv6 literal in brackets. */
        public static String literal(String serverName) {
            return serverName != null && serverName.indexOf(':') >= 0 && !serverName.startsWith("[")
                    ? "[" + serverName + "]" : serverName;
        }

        public boolean allowed(String hostHeader) {
            if (hostHeader == null || hostHeader.isEmpty()) {
                return true; // HTTP/1.0 without Host: no name to rebind (browsers always send one)
            }
            String h = hostHeader.strip().toLowerCase(java.util.Locale.ROOT);
            if (h.startsWith("[")) {
                int end = h.indexOf(']');
                return end > 0 && IPV6.matcher(h.substring(1, end)).matches();
            }
            int colon = h.lastIndexOf(':');
            String name = colon >= 0 ? h.substring(0, colon) : h;
            if (name.endsWith(".")) {
                name = name.substring(0, name.length() - 1);
            }
            return IPV4.matcher(name).matches() || names.contains(name);
        }
    }
}
