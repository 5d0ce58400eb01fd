package io.tailwatch.daemon.api;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The status page at /ui/: three static files from the jar (page, script, style) that read
 * /api/v1/status and /api/v1/history from the browser, so the page shows exactly what the API and
 * {@code tailwatch status} show. Nothing is fetched from anywhere else: the response headers set a
 * Content-Security-Policy that allows scripts, styles and requests from this origin only. The files
 * hold no data, so they are served like the rest of the listener (its authentication applies to them
 * when it guards every path); the data comes from /api/*, behind the API token when one is set.
 */
public final class StatusPage {
    public static final String PATH = "/ui/";
    public static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final String ROOT = "/io/tailwatch/ui/";
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "app.js", "text/javascript; charset=utf-8",
            "app.css", "text/css; charset=utf-8");

    private StatusPage() {
    }

    public static void register(RoutesConfig app) {
        // Javalin matches /ui and /ui/ alike; the page's relative links need the slash.
        app.get(PATH, ctx -> {
            if (ctx.path().endsWith("/")) {
                serve(ctx, "index.html");
            } else {
                ctx.redirect(PATH, HttpStatus.MOVED_PERMANENTLY);
            }
        });
        app.get(PATH + "{file}", ctx -> serve(ctx, ctx.pathParam("file")));
    }

    private static void serve(Context ctx, String file) {
        String type = FILES.get(file);
        headers(ctx);
        if (file.equals("runbook")) {
            ctx.contentType("text/html; charset=utf-8").result(runbook());
            return;
        }
        if (type == null) {
            ctx.status(404).contentType("text/plain; charset=utf-8").result("not found\n");
            return;
        }
        ctx.contentType(type).result(read(file));
    }

    /** Security headers for every page response: the CSP, no sniffing, no framing, no referrer, no caching of stale script. */
    static void headers(Context ctx) {
        // A policy the web config set stays and this one is sent beside it: a browser enforces every
        // Content-Security-Policy header it gets, so neither can weaken the other. X-Frame-Options is
        // DENY, at least as strict as either value the web config may set (deny, sameorigin).
        if (ctx.res().containsHeader("Content-Security-Policy")) {
            ctx.res().addHeader("Content-Security-Policy", CSP);
        } else {
            ctx.header("Content-Security-Policy", CSP);
        }
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-cache");
    }

    /**
     * The on-call runbook (docs/runbook.md, in the jar) as a page: each section's Markdown shown as the
     * plain text it is meant to read as, under an anchor named after its heading, so an alert's
     * {@code runbook#EngineDown} link lands on its section. No Markdown library: nothing here needs more.
     */
    static String runbook() {
        String md = new String(read("runbook.md"), java.nio.charset.StandardCharsets.UTF_8);
        StringBuilder b = new StringBuilder("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>tailwatch runbook</title><link rel=\"stylesheet\" href=\"app.css\"></head>"
                + "<body class=\"runbook\"><header class=\"top\"><h1>tailwatch runbook</h1>"
                + "<a href=\"./\">status</a></header><main>\n<section><pre>");
        for (String line : md.split("\n", -1)) {
            if (line.matches("<a id=\"[A-Za-z0-9_-]+\"></a>\\s*")) {
                continue;
            }
            if (line.startsWith("## ")) {
                String title = line.substring(3).strip();
                String id = title.replaceAll("[^A-Za-z0-9_-]+", "-");
                b.append("</pre></section>\n<section id=\"").append(id).append("\"><h2>").append(escape(title))
                        .append("</h2><pre>");
                continue;
            }
            b.append(escape(line)).append('\n');
        }
        return b.append("</pre></section></main></body></html>\n").toString();
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** Read per request (three small files, rarely fetched): nothing is held in the heap between page loads. */
    static byte[] read(String file) {
        try (InputStream in = StatusPage.class.getResourceAsStream(ROOT + file)) {
            if (in == null) {
                throw new IllegalStateException("status page file missing from the jar: " + file);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
