package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.HostFixture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's alerts in Debian's real Alertmanager, configured with the fleet kit's
 * {@code alertmanager.yml} (its receiver URL pointed at a loopback receiver, its waits shortened):
 * SwapUsedHigh fires in the agent, arrives through API v2 with the labels the kit routes on, is routed
 * to the kit's receiver and grouped by alertname and host, stays active past its {@code endsAt} because
 * the agent re-sends it, is silenced with {@code amtool silence add}, and resolves with the agent's
 * resolution time. The webhook, aimed at the same Alertmanager's API (which refuses its body), fails
 * after one attempt.
 */
class AlertmanagerIT {
    private static final Path KIT = AgentProcess.root().resolve("dashboards/fleet");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    private Process alertmanager;
    private HttpServer receiver;
    private final List<JsonNode> notifications = new CopyOnWriteArrayList<>();
    private AgentProcess agent;
    private int amPort;

    @AfterEach
    void stop() throws InterruptedException {
        if (agent != null) {
            agent.close();
        }
        if (alertmanager != null) {
            alertmanager.destroy();
            if (!alertmanager.waitFor(10, TimeUnit.SECONDS)) {
                alertmanager.destroyForcibly();
            }
        }
        if (receiver != null) {
            receiver.stop(0);
        }
    }

    static String binary(String... names) {
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

    private String amUrl(String path) {
        return "http://127.0.0.1:" + amPort + path;
    }

    private void startAlertmanager() throws Exception {
        String bin = binary("alertmanager", "prometheus-alertmanager");
        receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
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
        Path cfg = dir.resolve("alertmanager.yml");
        Files.writeString(cfg, config);
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            amPort = s.getLocalPort();
        }
        Path log = dir.resolve("alertmanager.log");
        // No cluster listener: its default is a fixed port (9094) on every address.
        alertmanager = new ProcessBuilder(bin, "--config.file=" + cfg, "--storage.path=" + dir.resolve("am-data"),
                "--web.listen-address=127.0.0.1:" + amPort, "--cluster.listen-address=", "--log.level=debug")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            if (!alertmanager.isAlive()) {
                throw new AssertionError("alertmanager exited:\n" + Files.readString(log));
            }
            return HTTP.send(HttpRequest.newBuilder(URI.create(amUrl("/-/ready"))).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        });
    }

    private JsonNode amAlerts() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(amUrl("/api/v2/alerts")))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Json.MAPPER.readTree(r.body());
    }

    private JsonNode swapAlert() throws Exception {
        for (JsonNode a : amAlerts()) {
            if (a.path("labels").path("alertname").asText().equals("SwapUsedHigh")) {
                return a;
            }
        }
        return null;
    }

    private String amtool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(binary("amtool"), "--alertmanager.url=" + amUrl("")));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(0);
        return out;
    }

    @Test
    void alertsFireAreRoutedSilencedAndResolveInARealAlertmanager() throws Exception {
        startAlertmanager();
        HostFixture fx = HostFixture.copy("alerts-host", dir.resolve("host"));
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, """
                server: {listen: 127.0.0.1:0}
                host: {interval: 500ms, timeout: 400ms, procfs: %s, sysfs: %s}
                engines: []
                rules:
                  SwapUsedHigh: {for: 1s}
                alerts:
                  alertmanagers: ["%s"]
                  alertmanager_resend_delay: 1s
                  alertmanager_timeout: 2s
                  labels: {site: lab}
                  webhook: {url: "%s", timeout: 2s, max_attempts: 5}
                  baseline: {file: %s}
                """.formatted(fx.procfs(), fx.sysfs(), amUrl(""), amUrl("/api/v2/alerts"), dir.resolve("baselines.json")));
        agent = AgentProcess.start(Map.of(), "run", "-c", config.toString());
        int port = agent.awaitListening();

        // paging is judged by its increase: the agent must have read the counter before it moves
        await().atMost(Duration.ofSeconds(60)).until(() -> agent.get("/metrics").body().contains("system_paging_operations"));
        fx.swapIn(500);
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> swapAlert() != null);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no SwapUsedHigh in Alertmanager; agent alerts: "
                    + agent.get("/api/v1/alerts").body() + "\nagent log:\n" + agent.stderr()
                    + "\nalertmanager log:\n" + Files.readString(dir.resolve("alertmanager.log")), e);
        }
        JsonNode a = swapAlert();
        Map<String, String> labels = new TreeMap<>();
        a.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
        assertThat(labels).containsEntry("job", "tailwatch").containsEntry("instance", "127.0.0.1:" + port)
                .containsEntry("host", "127.0.0.1").containsEntry("severity", "warning").containsEntry("site", "lab");
        assertThat(a.path("status").path("state").asText()).isEqualTo("active");
        assertThat(a.path("annotations").path("runbook_url").asText()).endsWith("#SwapUsedHigh");
        assertThat(a.path("generatorURL").asText()).isEqualTo("http://127.0.0.1:" + port + "/api/v1/alerts");
        // The agent's fingerprint of these labels is Alertmanager's own.
        assertThat(Fingerprint.of(labels)).isEqualTo(a.path("fingerprint").asText());
        // Routed by the kit's tree to its receiver, not to a default one.
        assertThat(a.path("receivers")).extracting(r -> r.path("name").asText()).containsExactly("tailwatch");

        // The kit's receiver gets the group (alertname, host).
        await().atMost(Duration.ofSeconds(20)).until(() -> notifications.stream()
                .anyMatch(n -> n.path("status").asText().equals("firing")));
        JsonNode firing = notifications.stream().filter(n -> n.path("status").asText().equals("firing")).findFirst().orElseThrow();
        assertThat(firing.path("receiver").asText()).isEqualTo("tailwatch");
        assertThat(firing.path("groupLabels").path("alertname").asText()).isEqualTo("SwapUsedHigh");
        assertThat(firing.path("groupLabels").path("host").asText()).isEqualTo("127.0.0.1");
        assertThat(firing.path("alerts").get(0).path("fingerprint").asText()).isEqualTo(Fingerprint.of(labels));
        assertThat(amtool("alert", "query", "alertname=SwapUsedHigh")).contains("SwapUsedHigh");

        // endsAt lies ahead (4 x the 1 s resend delay) and moves on: the alert outlives its first endsAt.
        Instant firstEnd = Instant.parse(a.path("endsAt").asText());
        assertThat(firstEnd).isAfter(Instant.now());
        await().atMost(Duration.ofSeconds(20)).until(() -> Instant.now().isAfter(firstEnd.plusSeconds(2)));
        JsonNode later = swapAlert();
        assertThat(later).as("still active after its first endsAt").isNotNull();
        assertThat(later.path("status").path("state").asText()).isEqualTo("active");
        assertThat(Instant.parse(later.path("endsAt").asText())).isAfter(firstEnd);

        // amtool silences it.
        String silence = amtool("silence", "add", "alertname=SwapUsedHigh", "host=127.0.0.1", "--comment=maintenance",
                "--author=test", "--duration=1h").strip();
        assertThat(silence).matches("[0-9a-f-]{36}");
        await().atMost(Duration.ofSeconds(10)).until(() -> "suppressed".equals(swapAlert().path("status").path("state").asText()));
        assertThat(swapAlert().path("status").path("silencedBy")).extracting(JsonNode::asText).containsExactly(silence);
        amtool("silence", "expire", silence);
        await().atMost(Duration.ofSeconds(10)).until(() -> "active".equals(swapAlert().path("status").path("state").asText()));

        // The agent resolves it; Alertmanager tells the receiver, with the agent's resolution time.
        fx.setMeminfo("SwapFree", "8388608 kB");
        await().atMost(Duration.ofSeconds(20)).until(() -> agentResolvedAt() != null);
        Instant resolvedAt = agentResolvedAt();
        await().atMost(Duration.ofSeconds(20)).until(() -> notifications.stream()
                .anyMatch(n -> n.path("status").asText().equals("resolved")));
        JsonNode resolved = notifications.stream().filter(n -> n.path("status").asText().equals("resolved")).findFirst().orElseThrow();
        assertThat(Instant.parse(resolved.path("alerts").get(0).path("endsAt").asText())).isEqualTo(resolvedAt);
        assertThat(swapAlert()).as("no longer listed as active").isNull();
        assertThat(Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("alerts").path("alertmanagers").get(0)
                .path("failed").asLong()).isZero();

        // Alertmanager's API answers 400 to the webhook body: one attempt, not five.
        await().atMost(Duration.ofSeconds(10)).until(() -> agent.stderr().contains("event=webhook_failed"));
        assertThat(agent.stderr()).contains("event=webhook_failed alertname=SwapUsedHigh status=firing attempts=1 error=\"HTTP 400\"")
                .doesNotContain("attempts=5");
    }

    private Instant agentResolvedAt() throws Exception {
        for (JsonNode a : Json.MAPPER.readTree(agent.get("/api/v1/alerts").body()).path("alerts")) {
            if (a.path("name").asText().equals("SwapUsedHigh") && a.path("state").asText().equals("resolved")) {
                return Instant.parse(a.path("resolved_at").asText());
            }
        }
        return null;
    }
}
