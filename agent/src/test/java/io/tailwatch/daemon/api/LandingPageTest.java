package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.PrometheusExporter;
import io.tailwatch.metrics.SelfMetrics;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The landing page at / names every endpoint it serves, and the agent's own health families are on /metrics. */
class LandingPageTest {
    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRouteWithoutADescriptionIsListedAsUndescribedAndTemplatesAreNotLinked() {
        String page = ApiServer.landing(List.of(new String[] {"GET", "/api/v1/new"}, new String[] {"POST", "/api/v1/engines/{name}/restart"},
                new String[] {"GET", "/a/{b}"}));
        assertThat(page).contains("<li><a href=\"/api/v1/new\"><code>/api/v1/new</code></a>: " + ApiServer.UNDESCRIBED + "</li>",
                "<li><code>/api/v1/engines/&#123;name&#125;/restart</code>: " + ApiServer.ENDPOINTS.get("/api/v1/engines/{name}/restart"),
                "<li><code>/a/&#123;b&#125;</code>: " + ApiServer.UNDESCRIBED);
    }

    @Test
    void rootListsTheEndpointsAndTheLinkedOnesAnswer() throws Exception {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch"));
        hub.publish("build", List.of(SelfMetrics.buildInfo("1.2.3")));
        try (ApiServer s = new ApiServer(prom, () -> null, List.of(), null, List.of(), () -> "1.2.3").start("127.0.0.1", 0)) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> root = get(http, s.port(), "/");
            assertThat(root.statusCode()).isEqualTo(200);
            assertThat(root.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
            // The bare server answers /metrics, /healthz and /api/v1/status: the page lists those, described.
            assertThat(s.routes()).extracting(r -> r[0] + " " + r[1])
                    .containsExactly("GET /metrics", "GET /healthz", "GET /api/v1/status");
            assertThat(root.body()).contains("<a href=\"/metrics\">", "<a href=\"/healthz\">", "<a href=\"/api/v1/status\">",
                    ApiServer.ENDPOINTS.get("/metrics")).doesNotContain(ApiServer.UNDESCRIBED, "/ui/");
            for (String p : List.of("/metrics", "/healthz", "/api/v1/status")) {
                assertThat(get(http, s.port(), p).statusCode()).as(p).isEqualTo(200);
            }
            String metrics = get(http, s.port(), "/metrics").body();
            assertThat(metrics).containsPattern("tailwatch_build_info\\{process_runtime_name=\"[^\"]+\","
                    + "process_runtime_version=\"[^\"]+\",tailwatch_build_version=\"1\\.2\\.3\"} 1")
                    .containsPattern("(?m)^process_cpu_seconds_total \\d")
                    .containsPattern("(?m)^process_start_time_seconds \\d")
                    .containsPattern("(?m)^process_open_fds \\d");
        }
    }
}
