package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.config.AlertsConfig;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Severity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The webhook sink against a real HTTP receiver on loopback. */
class WebhookSinkTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private HttpServer server;
    private final List<JsonNode> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final CountDownLatch release = new CountDownLatch(1);
    private WebhookSink sink;

    /** Starts a receiver answering {@code failFirst} requests with 503, then 200; or hanging when {@code hang}. */
    private URI receiver(int failFirst, boolean hang) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
        server.createContext("/hook", ex -> {
            byte[] body = ex.getRequestBody().readAllBytes();
            int n = requests.incrementAndGet();
            if (hang) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (n <= failFirst) {
                ex.sendResponseHeaders(503, -1);
            } else {
                received.add(Json.MAPPER.readTree(new String(body, StandardCharsets.UTF_8)));
                ex.sendResponseHeaders(200, -1);
            }
            ex.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    }

    @AfterEach
    void stop() {
        release.countDown();
        if (sink != null) {
            sink.close();
        }
        if (server != null) {
            server.stop(0);
        }
    }

    private WebhookSink sink(URI url, Duration timeout, Duration cooldown, int queue, int attempts) {
        sink = new WebhookSink(new AlertsConfig.Webhook(url, timeout, cooldown, queue, attempts), "http://127.0.0.1:9531",
                Clock.systemUTC(), Duration.ofMillis(20));
        return sink;
    }

    private static Alert alert(AlertState state, String engine) {
        return new Alert("EngineDown", state, Severity.CRITICAL, T0, T0.minusSeconds(60), T0,
                state == AlertState.RESOLVED ? T0.plusSeconds(120) : null, 0, "0", null, null,
                Map.of("engine", engine), Map.of("swap_used_bytes", 1.0), "Engine " + engine + " is down", "desc",
                "docs/runbook.md#EngineDown");
    }

    @Test
    void sendsEachTransitionOnceInTheAlertmanagerFormat() throws Exception {
        WebhookSink s = sink(receiver(0, false), Duration.ofSeconds(2), Duration.ofMinutes(5), 16, 3);
        s.accept(new Transition(AlertState.INACTIVE, AlertState.PENDING, alert(AlertState.PENDING, "mlx")));
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "mlx")));
        s.accept(new Transition(AlertState.FIRING, AlertState.RESOLVED, alert(AlertState.RESOLVED, "mlx")));
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
        JsonNode firing = received.get(0);
        assertThat(firing.path("version").asText()).isEqualTo("4");
        assertThat(firing.path("status").asText()).isEqualTo("firing");
        assertThat(firing.path("receiver").asText()).isEqualTo("tailwatch");
        assertThat(firing.path("groupKey").asText()).isEqualTo("{}:{alertname=\"EngineDown\"}");
        assertThat(firing.path("groupLabels").path("alertname").asText()).isEqualTo("EngineDown");
        JsonNode a = firing.path("alerts").get(0);
        assertThat(a.path("labels").path("alertname").asText()).isEqualTo("EngineDown");
        assertThat(a.path("labels").path("severity").asText()).isEqualTo("critical");
        assertThat(a.path("labels").path("engine").asText()).isEqualTo("mlx");
        assertThat(a.path("annotations").path("runbook_url").asText()).isEqualTo("docs/runbook.md#EngineDown");
        assertThat(a.path("startsAt").asText()).isEqualTo("2026-01-01T00:00:00Z");
        assertThat(a.path("endsAt").asText()).isEqualTo("0001-01-01T00:00:00Z");
        assertThat(a.path("fingerprint").asText()).hasSize(16);
        JsonNode resolved = received.get(1);
        assertThat(resolved.path("status").asText()).isEqualTo("resolved");
        assertThat(resolved.path("alerts").get(0).path("endsAt").asText()).isEqualTo("2026-01-01T00:02:00Z");
        assertThat(resolved.path("alerts").get(0).path("fingerprint").asText()).isEqualTo(a.path("fingerprint").asText());
        assertThat(requests.get()).as("pending is not notified").isEqualTo(2);
    }

    @Test
    void retriesWithBackoffUntilTheReceiverAccepts() throws Exception {
        WebhookSink s = sink(receiver(2, false), Duration.ofSeconds(2), Duration.ofMinutes(5), 16, 5);
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "mlx")));
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
        // The receiver records the body before it answers: the sink counts once the answer is read.
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Long) s.stats().get("sent")) == 1L);
        assertThat(requests.get()).isEqualTo(3);
        assertThat(s.stats()).containsEntry("sent", 1L).containsEntry("failed", 0L);
    }

    @Test
    void givesUpAfterMaxAttempts() throws Exception {
        WebhookSink s = sink(receiver(100, false), Duration.ofSeconds(2), Duration.ofMinutes(5), 16, 3);
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "mlx")));
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Long) s.stats().get("failed")) == 1L);
        assertThat(requests.get()).isEqualTo(3);
    }

    @Test
    void cooldownSuppressesTheSameAlertInTheSameState() throws Exception {
        WebhookSink s = sink(receiver(0, false), Duration.ofSeconds(2), Duration.ofMinutes(5), 16, 3);
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "mlx")));
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "mlx")));
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "ollama")));
        await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
        assertThat(s.stats()).containsEntry("suppressed_by_cooldown", 1L);
        assertThat(received).extracting(r -> r.path("alerts").get(0).path("labels").path("engine").asText())
                .containsExactlyInAnyOrder("mlx", "ollama");
    }

    @Test
    void aDeadWebhookNeverBlocksAndTheQueueStaysBounded() throws Exception {
        WebhookSink s = sink(receiver(0, true), Duration.ofMillis(300), Duration.ZERO, 4, 2);
        for (int i = 0; i < 200; i++) {
            s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "e" + i)));
        }
        assertThat((Integer) s.stats().get("queued")).isLessThanOrEqualTo(4);
        assertThat((Long) s.stats().get("dropped")).isGreaterThanOrEqualTo(195L);
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Long) s.stats().get("failed")) >= 1L);
    }

    @Test
    void closeDeliversWhatIsQueuedWithinTheGracePeriod() throws Exception {
        WebhookSink s = sink(receiver(0, false), Duration.ofSeconds(2), Duration.ZERO, 64, 3);
        for (int i = 0; i < 20; i++) {
            s.accept(new Transition(AlertState.FIRING, AlertState.RESOLVED, alert(AlertState.RESOLVED, "e" + i)));
        }
        s.close(Duration.ofSeconds(5));
        assertThat(received).hasSize(20);
        assertThat(s.stats()).containsEntry("sent", 20L).containsEntry("dropped", 0L).containsEntry("queued", 0);
    }

    @Test
    void closeWithAHungReceiverEndsInTimeAndCountsEveryDropped() throws Exception {
        WebhookSink s = sink(receiver(0, true), Duration.ofSeconds(5), Duration.ZERO, 64, 3);
        for (int i = 0; i < 10; i++) {
            s.accept(new Transition(AlertState.FIRING, AlertState.RESOLVED, alert(AlertState.RESOLVED, "e" + i)));
        }
        long t0 = System.nanoTime();
        s.close(Duration.ofMillis(800));
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(tookMs).isLessThan(1_800);
        assertThat(received).isEmpty();
        assertThat((Long) s.stats().get("dropped") + (Long) s.stats().get("failed")).isEqualTo(10L);
        assertThat(s.stats()).containsEntry("dropped_at_shutdown", 10L);
        assertThat(s.stats()).containsEntry("queued", 0);
        s.accept(new Transition(AlertState.PENDING, AlertState.FIRING, alert(AlertState.FIRING, "late")));
        assertThat(s.stats()).containsEntry("queued", 0);
    }
}
