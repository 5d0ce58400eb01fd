package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The page's routes on a real Javalin server on loopback: files, headers, and what is refused. */
class StatusPageTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Javalin app;

    @BeforeEach
    void start() {
        app = Javalin.create(cfg -> {
            ApiServer.smallServer(cfg);
            StatusPage.register(cfg.routes);
        });
        app.start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        app.stop();
    }

    private static Javalin guarded(java.nio.file.Path web) throws Exception {
        io.tailwatch.core.config.LiveWebConfig live = io.tailwatch.core.config.LiveWebConfig.load(web);
        return Javalin.create(cfg -> {
            ApiServer.smallServer(cfg);
            cfg.routes.before(new io.tailwatch.daemon.api.BasicAuthGuard(live, false));
            StatusPage.register(cfg.routes);
        });
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesThePageItsScriptAndStyleWithTheStrictPolicy() throws Exception {
        for (String[] f : new String[][] {{"/ui/", "text/html"}, {"/ui/app.js", "text/javascript"},
                {"/ui/app.css", "text/css"}, {"/ui/runbook", "text/html"}}) {
            HttpResponse<String> r = get(f[0]);
            assertThat(r.statusCode()).as(f[0]).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).as(f[0]).startsWith(f[1]);
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(f[0]).hasValue(StatusPage.CSP);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
        }
        assertThat(StatusPage.CSP).contains("script-src 'self'", "default-src 'none'", "connect-src 'self'")
                .doesNotContain("unsafe");
    }

    @Test
    void thePageLoadsNothingFromElsewhereAndHasNoInlineScriptOrStyle() throws Exception {
        String html = get("/ui/").body();
        // The SVG namespace is a name, not a place the page loads from.
        String js = get("/ui/app.js").body().replace("\"http://www.w3.org/2000/svg\"", "SVG_NS");
        String css = get("/ui/app.css").body();
        // Every script element has a src, and it is a file of this page.
        Matcher scripts = Pattern.compile("<script([^>]*)>").matcher(html);
        int n = 0;
        while (scripts.find()) {
            n++;
            assertThat(scripts.group(1)).contains("src=\"app.js\"");
        }
        assertThat(n).isEqualTo(1);
        assertThat(html).doesNotContain("style=", " on" + "click=", "onload=", "http://", "https://");
        assertThat(js).doesNotContain("innerHTML", "eval(", "new Function", "http://", "https://", "document.write");
        assertThat(css).doesNotContain("@import", "url(");
    }

    @Test
    void unknownFilesAreNotFoundAndTheBarePathRedirects() throws Exception {
        assertThat(get("/ui/other.js").statusCode()).isEqualTo(404);
        assertThat(get("/ui/..%2Fsimplelogger.properties").statusCode()).isEqualTo(404);
        HttpResponse<String> bare = get("/ui");
        assertThat(bare.statusCode()).isEqualTo(301);
        assertThat(bare.headers().firstValue("Location").orElse("")).endsWith("/ui/");
    }

    @Test
    void basicAuthOfTheWebConfigGuardsThePageAsEveryOtherPath(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path web = dir.resolve("web.yml");
        java.nio.file.Files.writeString(web, "basic_auth_users: {viewer: '%s'}\n"
                .formatted(io.tailwatch.testing.TestCerts.bcrypt("pw")));
        // As ApiServer.withWebConfig applies it: one guard before every handler.
        Javalin guarded = guarded(web);
        guarded.start("127.0.0.1", 0);
        try {
            for (String path : new String[] {"/ui/", "/ui/app.js", "/ui/runbook"}) {
                HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + guarded.port() + path))
                        .timeout(Duration.ofSeconds(10));
                assertThat(http.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode()).as(path).isEqualTo(401);
                String creds = java.util.Base64.getEncoder().encodeToString("viewer:pw".getBytes(StandardCharsets.UTF_8));
                HttpResponse<String> ok = http.send(b.header("Authorization", "Basic " + creds).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(ok.statusCode()).as(path).isEqualTo(200);
                assertThat(ok.headers().firstValue("Content-Security-Policy")).hasValue(StatusPage.CSP);
            }
        } finally {
            guarded.stop();
        }
    }

    /** The web config's own policy is kept and the page's is sent beside it (both enforced); framing stays DENY. */
    @Test
    void aWebConfigPolicyIsKeptBesideThePagesOwn(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path web = dir.resolve("web.yml");
        java.nio.file.Files.writeString(web, "http_server_config:\n  headers:\n"
                + "    Content-Security-Policy: \"default-src *; report-uri /csp\"\n    X-Frame-Options: sameorigin\n");
        Javalin guarded = guarded(web);
        guarded.start("127.0.0.1", 0);
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + guarded.port() + "/ui/"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().allValues("Content-Security-Policy"))
                    .containsExactlyInAnyOrder("default-src *; report-uri /csp", StatusPage.CSP);
            assertThat(r.headers().allValues("X-Frame-Options")).containsExactly("DENY");
        } finally {
            guarded.stop();
        }
    }

    @Test
    void runbookHasOneAnchoredSectionPerAlertWithItsTextEscaped() throws Exception {
        String page = get("/ui/runbook").body();
        for (String alert : new String[] {"SwapUsedHigh", "EngineDown", "TtftOverSlo", "KvHeadroomLow"}) {
            assertThat(page).contains("<section id=\"" + alert + "\"><h2>" + alert + "</h2>");
        }
        assertThat(StatusPage.escape("<b>\"x\" & y</b>")).isEqualTo("&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt;");
        assertThat(page.getBytes(StandardCharsets.UTF_8).length).isLessThan(64 * 1024);
    }
}
