package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.OtlpReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OTLP push from the real jar to a loopback receiver, configured the standard OTEL_* way. */
class OtlpIT {
    @Test
    void otelEnvironmentTurnsExportOnWithResourceAttributes(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 500ms\nengines: []\n");
        try (OtlpReceiver receiver = new OtlpReceiver();
             AgentProcess agent = AgentProcess.start(Map.of(
                     "OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                     "OTEL_EXPORTER_OTLP_HEADERS", "x-team=platform",
                     "OTEL_METRIC_EXPORT_INTERVAL", "500",
                     "OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test"), "run", "--config", cfg.toString())) {
            agent.awaitListening();
            java.util.Set<String> expected = java.util.Set.of("system.memory.limit", "system.memory.usage",
                    "system.paging.usage", "tailwatch.sampler.success", "tailwatch.sampler.duration");
            await().atMost(Duration.ofSeconds(30)).until(() -> receiver.metricNames().containsAll(expected));
            // Only catalog metrics leave the agent (no SDK self-telemetry).
            java.util.Set<String> catalog = new java.util.HashSet<>();
            io.tailwatch.metrics.Catalog.all().forEach(d -> catalog.add(d.name()));
            assertThat(catalog).containsAll(receiver.metricNames());
            Map<String, String> res = receiver.lastResource();
            assertThat(res).containsEntry("service.name", "tailwatch").containsEntry("deployment.environment", "test")
                    .containsKeys("service.version", "host.name", "host.arch", "os.type", "os.version");
            assertThat(receiver.lastHeaders()).containsEntry("x-team", "platform");
            int before = receiver.received();
            assertThat(agent.terminate(Duration.ofSeconds(5))).isIn(0, 143);
            // The final flush on SIGTERM delivered one more export.
            assertThat(receiver.received()).isGreaterThan(before);
        }
    }

    @Test
    void aFailingEndpointIsCountedAndExportResumes(@TempDir Path dir) throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver()) {
            receiver.answer(400);
            Path cfg = dir.resolve("c.yaml");
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 500ms\nengines: []\n"
                    + "otlp:\n  enabled: true\n  endpoint: " + receiver.endpoint() + "\n  interval: 1s\n");
            try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).until(() ->
                        agent.get("/metrics").body().matches("(?s).*tailwatch_otlp_export_failures_total [1-9].*"));
                assertThat(receiver.received()).isZero();
                receiver.answer(200);
                await().atMost(Duration.ofSeconds(30)).until(() -> receiver.metricNames().contains("system.memory.limit"));
                assertThat(agent.get("/healthz").statusCode()).isEqualTo(200);
            }
        }
    }
}
