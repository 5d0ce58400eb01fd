package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.TestCerts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a loopback listener the web config's basic-auth users stay editable live: dropping them opens the
 * listener (only an exposed listener refuses that edit, see LiveWebConfigTest), adding one back closes it.
 */
class WebConfigReloadIT {
    @Test
    void aLoopbackListenersBasicAuthEditsApplyLive(@TempDir Path dir) throws Exception {
        String hash = TestCerts.bcrypt("pw");
        Path web = dir.resolve("web.yml");
        Files.writeString(web, "basic_auth_users:\n  prometheus: '" + hash + "'\n");
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "server: {listen: 127.0.0.1:0, web_config_file: " + web + "}\nengines: []\n");
        String basic = "Basic " + Base64.getEncoder().encodeToString("prometheus:pw".getBytes(StandardCharsets.UTF_8));
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "-c", config.toString())) {
            agent.awaitListening();
            assertThat(agent.get("/metrics").statusCode()).isEqualTo(401);
            assertThat(agent.get("/metrics", "Authorization", basic).statusCode()).isEqualTo(200);

            Files.writeString(web, "# no basic auth on loopback\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/metrics").statusCode() == 200);
            assertThat(agent.stderr()).doesNotContain("is refused");

            Files.writeString(web, "basic_auth_users:\n  grafana: '" + hash + "'\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/metrics").statusCode() == 401);
        }
    }
}
