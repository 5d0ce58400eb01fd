package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.RecordingEngine;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** A config reload (SIGHUP) while a stream runs through the proxy: the stream goes on, whole, on the same listener. */
class ProxyReloadIT {
    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void aReloadKeepsTheProxiedStreamOpen(@TempDir Path dir) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        try (RecordingEngine engine = RecordingEngine.start()) {
            Path cfg = dir.resolve("tailwatch.yaml");
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                    + ProxyIT.engineYaml("rec", engine.port()));
            try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                ProxyIT.agent = agent;
                await().atMost(Duration.ofSeconds(30)).until(() -> ProxyIT.proxyPort("rec") > 0);
                int port = ProxyIT.proxyPort("rec");
                HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(ProxyIT.at(port, "/sse?n=80&gap_ms=100"))
                        .header("X-Test-Id", "reload").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                        HttpResponse.BodyHandlers.ofInputStream());
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                try (InputStream in = r.body()) {
                    byte[] buf = new byte[8192];
                    int n = in.read(buf);
                    got.write(buf, 0, n);
                    new ProcessBuilder("kill", "-HUP", Long.toString(agent.process().pid())).start().waitFor();
                    await().atMost(Duration.ofSeconds(20)).until(() -> agent.stderr().contains("config reloaded from"));
                    assertThat(engine.byId("reload")).as("the stream still runs after the reload").isNull();
                    while ((n = in.read(buf)) > 0) {
                        got.write(buf, 0, n);
                    }
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("reload") != null);
                assertThat(ProxyIT.sha(got.toByteArray())).isEqualTo(engine.byId("reload").responseSha());
                assertThat(new String(got.toByteArray(), java.nio.charset.StandardCharsets.UTF_8)).endsWith("data: [DONE]\n\n");
                // The proxy keeps its own listener across the reload.
                HttpResponse<String> after = http.send(HttpRequest.newBuilder(ProxyIT.at(port, "/json?n=3"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(after.statusCode()).isEqualTo(200);
            } finally {
                ProxyIT.agent = null;
            }
        }
    }
}
