package io.tailwatch.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.json.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Debian's real Alertmanager on loopback with the fleet kit's {@code alertmanager.yml}: its receiver URL pointed
 * at a loopback receiver that keeps each notification, its waits shortened to a second. Skips the test when the
 * binary is missing unless TAILWATCH_REQUIRE_PROMTOOL=1 (CI installs it with prometheus-alertmanager).
 */
public final class AlertmanagerServer extends LoopbackDaemon {
    private static final Path KIT = AgentProcess.root().resolve("dashboards/fleet");
    private final HttpServer receiver;
    private final List<JsonNode> notifications;

    private AlertmanagerServer(Process process, HttpServer receiver, int port, Path log, List<JsonNode> notifications) {
        super(process, port, log);
        this.receiver = receiver;
        this.notifications = notifications;
    }

    /** The first of {@code names} on PATH (alertmanager, amtool). */
    public static String binary(String... names) {
        for (String name : names) {
            for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
                if (Files.isExecutable(Path.of(d, name))) {
                    return Path.of(d, name).toString();
                }
            }
        }
        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_PROMTOOL"))) {
            throw new AssertionError(names[0] + " is required (TAILWATCH_REQUIRE_PROMTOOL=1) but not on PATH");
        }
        assumeTrue(false, names[0] + " not installed (apt-get install prometheus-alertmanager)");
        return null;
    }

    public static AlertmanagerServer start(Path dir) throws IOException {
        String bin = binary("alertmanager", "prometheus-alertmanager");
        List<JsonNode> notifications = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/tailwatch", ex -> {
            notifications.add(Json.MAPPER.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        receiver.start();
        String kit = Files.readString(KIT.resolve("alertmanager.yml"));
        assertThat(kit).contains("http://127.0.0.1:5001/tailwatch", "group_wait: 30s", "group_interval: 5m");
        String config = kit.replace("http://127.0.0.1:5001/tailwatch",
                        "http://127.0.0.1:" + receiver.getAddress().getPort() + "/tailwatch")
                .replaceAll("group_wait: \\d+s", "group_wait: 1s").replace("group_interval: 5m", "group_interval: 1s");
        Files.createDirectories(dir);
        Path cfg = dir.resolve("alertmanager.yml");
        Files.writeString(cfg, config);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path log = dir.resolve("alertmanager.log");
        // No cluster listener: its default is a fixed port (9094) on every address.
        Process p = new ProcessBuilder(bin, "--config.file=" + cfg, "--storage.path=" + dir.resolve("am-data"),
                "--web.listen-address=127.0.0.1:" + port, "--cluster.listen-address=", "--log.level=debug")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        AlertmanagerServer am = new AlertmanagerServer(p, receiver, port, log, notifications);
        am.awaitReady("alertmanager");
        return am;
    }

    /** 127.0.0.1:PORT, as a Prometheus alerting target. */
    public String address() {
        return "127.0.0.1:" + port;
    }

    /** The notifications the kit's receiver got (webhook bodies), in order. */
    public List<JsonNode> notifications() {
        return notifications;
    }

    /** GET of an API path, its JSON body; fails on a status other than 200. */
    public JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url(path)))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Json.MAPPER.readTree(r.body());
    }

    @Override
    public void close() {
        super.close();
        receiver.stop(0);
    }
}
