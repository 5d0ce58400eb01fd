package io.tailwatch.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Debian's real Prometheus on loopback (temp dir, random port), scraping the given targets every
 * second. Skips the test when the binary is missing unless TAILWATCH_REQUIRE_PROMTOOL=1 (CI).
 * {@link #binary3()} is Prometheus 3 (its own OTLP receiver) from the private root of
 * scripts/prometheus-root.sh, required in CI by TAILWATCH_REQUIRE_PROMETHEUS3=1.
 */
public final class PrometheusServer extends LoopbackDaemon {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PrometheusServer(Process process, int port, Path log) {
        super(process, port, log);
    }

    public static String binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, "prometheus");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_PROMTOOL"))) {
            throw new AssertionError("prometheus is required (TAILWATCH_REQUIRE_PROMTOOL=1) but not on PATH");
        }
        assumeTrue(false, "prometheus not installed (apt-get install prometheus)");
        return null;
    }

    /** Prometheus 3 (scripts/prometheus-root.sh's wrapper): TAILWATCH_PROMETHEUS3, else the root built last. */
    public static String binary3() {
        return DebianRoot.wrapper("TAILWATCH_PROMETHEUS3", "PROMETHEUS3", "prometheus", "run-prometheus").toString();
    }

    public static PrometheusServer start(Path dir, List<String> targets) throws IOException {
        StringBuilder cfg = new StringBuilder("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                + "scrape_configs:\n  - job_name: tailwatch\n    static_configs:\n      - targets: [");
        for (int i = 0; i < targets.size(); i++) {
            cfg.append(i == 0 ? "" : ", ").append('\'').append(targets.get(i)).append('\'');
        }
        cfg.append("]\n");
        Files.createDirectories(dir);
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, cfg.toString());
        return start(dir, config);
    }

    /** Starts Prometheus with a config file written by the caller (TLS, file_sd, rule files). */
    public static PrometheusServer start(Path dir, Path config, String... flags) throws IOException {
        return start(binary(), 0, dir, config, flags);
    }

    /** Starts the Prometheus {@code bin} on 127.0.0.1:{@code port} (0: any free port). */
    public static PrometheusServer start(String bin, int port, Path dir, Path config, String... flags) throws IOException {
        if (port == 0) {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
        }
        Files.createDirectories(dir);
        Path log = dir.resolve("prometheus.log");
        List<String> command = new java.util.ArrayList<>(List.of(bin, "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                "--storage.tsdb.retention.time=1h"));
        command.addAll(List.of(flags));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        PrometheusServer server = new PrometheusServer(p, port, log);
        server.awaitReady("prometheus");
        return server;
    }

    /** Runs an instant query; throws when Prometheus reports an error (bad PromQL). */
    public JsonNode query(String expr) throws IOException, InterruptedException {
        return get("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
    }

    public JsonNode get(String pathAndQuery) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url(pathAndQuery)))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = JSON.readTree(r.body());
        if (r.statusCode() != 200 || !"success".equals(body.path("status").asText())) {
            throw new AssertionError(pathAndQuery + " -> HTTP " + r.statusCode() + ": " + r.body());
        }
        return body;
    }
}
