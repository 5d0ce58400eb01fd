package io.tailwatch.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.tailwatch.daemon.Json;
import io.tailwatch.daemon.StatusContributor;
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

    private final Javalin app;
    private volatile String listenHost;
    private volatile int listenPort;

    /** Every endpoint, for the landing page at /: path and what it serves. */
    static final List<String[]> ENDPOINTS = List.of(
            new String[] {"/metrics", "Prometheus text exposition (OpenMetrics when the Accept header asks for it)"},
            new String[] {"/healthz", "200 ok while host sampling runs, 503 with the reason when it stalls"},
            new String[] {"/ui/", "status page: host signals, engines, alerts"},
            new String[] {"/api/v1/status", "the agent's state as JSON (bearer token when one is configured)"},
            new String[] {"/api/v1/alerts", "alert instances as JSON (bearer token when one is configured)"},
            new String[] {"/api/v1/engines/{name}/restart", "POST: runbook restart of an engine (needs its token)"});

    /** A static page (no input reaches it), like the landing page of node_exporter. */
    static final String LANDING = landing();

    private static String landing() {
        StringBuilder b = new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>tailwatch</title></head>\n<body>\n<h1>tailwatch</h1>\n"
                + "<p>Host and LLM-engine signals for Prometheus and OpenTelemetry.</p>\n<ul>\n");
        for (String[] e : ENDPOINTS) {
            String path = e[0];
            boolean link = !path.contains("{");
            b.append("<li>").append(link ? "<a href=\"" + path + "\">" : "").append("<code>").append(path.replace("{", "&#123;").replace("}", "&#125;"))
                    .append("</code>").append(link ? "</a>" : "").append(": ").append(e[1]).append("</li>\n");
        }
        return b.append("</ul>\n</body></html>\n").toString();
    }

    public ApiServer(PrometheusExporter prometheus, Health health, List<StatusContributor> status, String authToken,
                     List<Consumer<Javalin>> extraRoutes, Supplier<String> version) {
        this.app = Javalin.create(ApiServer::smallServer);
        app.get("/", ctx -> {
            ctx.contentType("text/html; charset=utf-8");
            ctx.result(LANDING);
        });
        app.get("/metrics", ctx -> {
            String accept = ctx.header("Accept");
            ctx.contentType(prometheus.contentType(accept));
            ctx.result(prometheus.scrape(accept));
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
            byte[] expected = ("Bearer " + authToken).getBytes(StandardCharsets.UTF_8);
            app.before("/api/*", ctx -> {
                String h = ctx.header("Authorization");
                byte[] got = h == null ? new byte[0] : h.getBytes(StandardCharsets.UTF_8);
                if (!MessageDigest.isEqual(expected, got)) {
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
        for (Consumer<Javalin> r : extraRoutes) {
            r.accept(app);
        }
    }

    public static void json(Context ctx, Object body) {
        ctx.contentType("application/json");
        ctx.result(Json.write(body));
    }

    /**
     * The server settings that keep Javalin small: few threads (one acceptor, one selector, workers on
     * demand that end after 30 s idle, none pre-started: scrapes are rare, memory is the budget), no
     * banner, and no low-resources monitor (a thread that wakes every second, of no use to a loopback
     * scrape endpoint with a bounded pool). Public for the footprint benchmark, which measures Javalin
     * with exactly these settings.
     */
    public static void smallServer(io.javalin.config.JavalinConfig cfg) {
        QueuedThreadPool pool = new QueuedThreadPool(8, 1, 30_000);
        pool.setReservedThreads(0);
        pool.setName("tailwatch-http");
        pool.setDaemon(true);
        cfg.showJavalinBanner = false;
        cfg.jetty.threadPool = pool;
        cfg.useVirtualThreads = false;
        cfg.jetty.modifyServer(server -> server.getBeans(LowResourceMonitor.class).forEach(server::removeBean));
    }

    /**
     * Applies the exporter-toolkit web config: HTTPS when it has tls_server_config, and {@code guard}
     * (basic auth and response headers) before every handler. Call before {@link #start}.
     */
    public ApiServer withWebConfig(io.tailwatch.web.LiveWebConfig web, io.javalin.http.Handler guard) {
        app.before(guard);
        if (web.current().tls() != null) {
            app.unsafeConfig().jetty.addConnector((server, http) -> {
                ServerConnector c = io.tailwatch.web.TlsListener.connector(server, http, web);
                c.setHost(listenHost);
                c.setPort(listenPort);
                return c;
            });
        }
        return this;
    }

    /** Binds and starts; throws {@link BindFailure} when the address cannot be bound. */
    public ApiServer start(String host, int port) {
        try {
            listenHost = host;
            listenPort = port;
            app.start(host, port);
        } catch (RuntimeException e) {
            Throwable t = e;
            while (t != null) {
                if (t instanceof java.net.BindException || t instanceof java.io.IOException) {
                    throw new BindFailure(host, port, t.getMessage());
                }
                t = t.getCause();
            }
            throw e;
        }
        return this;
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }

    /** The listen address could not be bound (in use, not local, no permission). */
    public static final class BindFailure extends RuntimeException {
        public BindFailure(String host, int port, String why) {
            super("cannot listen on " + io.tailwatch.config.HostPort.format(host, port) + ": " + why);
        }
    }
}
