package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.FaultServer;
import io.tailwatch.testing.HostFixture;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each Alertmanager is posted to on its own: one that accepts the connection and never answers holds
 * only its own worker for {@code alertmanager_timeout}, while a healthy one beside it gets every batch
 * with the firing alert's {@code endsAt} still ahead. A timeout that could outlast the alerts' validity is
 * refused by {@code config check} and {@code run} alike.
 */
class AlertmanagerIndependenceIT {
    @TempDir
    Path dir;

    private AgentProcess agent;
    private HttpServer healthy;
    private FaultServer hung;
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger hungAccepted = new AtomicInteger();
    /** What the healthy Alertmanager received: the body and when it arrived. */
    private final List<Map.Entry<Instant, JsonNode>> received = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws IOException {
        if (agent != null) {
            agent.close();
        }
        if (healthy != null) {
            healthy.stop(0);
        }
        release.countDown();
        if (hung != null) {
            hung.close();
        }
    }

    private void startAlertmanagers() throws IOException {
        healthy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        healthy.createContext("/api/v2/alerts", ex -> {
            Instant at = Instant.now();
            received.add(Map.entry(at, Json.MAPPER.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        healthy.start();
        // Reads each request and never answers it.
        hung = new FaultServer((request, out) -> {
            hungAccepted.incrementAndGet();
            release.await();
        });
    }

    private static boolean hasSwapAlert(JsonNode batch) {
        for (JsonNode a : batch) {
            if (a.path("labels").path("alertname").asText().equals("SwapUsedHigh")) {
                return true;
            }
        }
        return false;
    }

    private long swapBatches() {
        return received.stream().filter(e -> hasSwapAlert(e.getValue())).count();
    }

    @Test
    void aHungAlertmanagerDoesNotDelayAHealthyOne() throws Exception {
        startAlertmanagers();
        HostFixture fx = HostFixture.copy("alerts-host", dir.resolve("host"));
        Path config = dir.resolve("tailwatch.yaml");
        // The hung one is listed first: posting in turn, the healthy one would wait out its 11 s timeout per batch.
        Files.writeString(config, """
                server: {listen: 127.0.0.1:0}
                host: {interval: 500ms, timeout: 400ms, procfs: %s, sysfs: %s}
                engines: []
                rules:
                  SwapUsedHigh: {for: 1s}
                alerts:
                  alertmanagers: ["http://127.0.0.1:%d", "http://127.0.0.1:%d"]
                  alertmanager_resend_delay: 3s
                  alertmanager_timeout: 11s
                  baseline: {file: %s}
                """.formatted(fx.procfs(), fx.sysfs(), hung.port(), healthy.getAddress().getPort(),
                dir.resolve("baselines.json")));
        agent = AgentProcess.startShipped(dir, Map.of(), "run", "-c", config.toString());
        agent.awaitListening();
        await().atMost(Duration.ofSeconds(60)).until(() -> agent.get("/metrics").body().contains("system_paging_operations"));
        fx.swapIn(500);

        // Two batches with the alert reach the healthy one (the firing one, then a resend) while the hung
        // one still holds the agent's first POST: had they been posted in turn, the healthy one would have
        // had nothing before that POST's timeout, and the hung one a second POST by then.
        await().atMost(Duration.ofSeconds(60)).until(() -> swapBatches() >= 2 || hungAccepted.get() >= 2);
        assertThat(hungAccepted.get()).as("POSTs to the hung Alertmanager").isEqualTo(1);
        assertThat(swapBatches()).isGreaterThanOrEqualTo(2);

        // Every batch arrived with the firing alert's endsAt ahead of its arrival.
        for (Map.Entry<Instant, JsonNode> e : received) {
            for (JsonNode a : e.getValue()) {
                if (a.path("labels").path("alertname").asText().equals("SwapUsedHigh")) {
                    assertThat(Instant.parse(a.path("endsAt").asText())).as("endsAt at receipt").isAfter(e.getKey());
                }
            }
        }
        JsonNode status = Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("alerts").path("alertmanagers");
        assertThat(status.get(1).path("sent").asLong()).isGreaterThanOrEqualTo(2);
        assertThat(status.get(1).path("failed").asLong()).isZero();
    }

    @Test
    void aTimeoutThatCanOutlastTheAlertsValidityIsRefused() throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, """
                server: {listen: 127.0.0.1:0}
                engines: []
                alerts:
                  alertmanagers: ["http://127.0.0.1:9093"]
                  alertmanager_timeout: 1m
                  alertmanager_resend_delay: 1s
                """);
        for (String cmd : List.of("check", "run")) {
            AgentProcess.Result r = cmd.equals("check") ? AgentProcess.run(Map.of(), "config", "check", cfg.toString())
                    : AgentProcess.run(Map.of(), "run", "--config", cfg.toString());
            assertThat(r.exitCode()).as(cmd + ": " + r.stderr()).isEqualTo(2);
            assertThat(r.stderr()).contains("alerts.alertmanager_timeout").contains("alertmanager_resend_delay")
                    .contains("1m must be shorter than").doesNotContain("\tat ");
        }
    }
}
