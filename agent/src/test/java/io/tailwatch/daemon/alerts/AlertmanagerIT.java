package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.AlertmanagerServer;
import io.tailwatch.testing.HostFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
    @TempDir
    Path dir;

    private AlertmanagerServer am;
    private AgentProcess agent;

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (am != null) {
            am.close();
        }
    }

    private String amUrl(String path) {
        return am.url(path);
    }

    private JsonNode swapAlert() throws Exception {
        for (JsonNode a : am.get("/api/v2/alerts")) {
            if (a.path("labels").path("alertname").asText().equals("SwapUsedHigh")) {
                return a;
            }
        }
        return null;
    }

    private String amtool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(AlertmanagerServer.binary("amtool"), "--alertmanager.url=" + amUrl("")));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(0);
        return out;
    }

    @Test
    void alertsFireAreRoutedSilencedAndResolveInARealAlertmanager() throws Exception {
        am = AlertmanagerServer.start(dir);
        List<JsonNode> notifications = am.notifications();
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
                    + "\nalertmanager log:\n" + am.log(), e);
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
