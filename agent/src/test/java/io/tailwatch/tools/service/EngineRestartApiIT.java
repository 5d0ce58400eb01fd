package io.tailwatch.tools.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.launchd.UserId;
import io.tailwatch.testing.RecordingLaunchctl;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** POST /api/v1/engines/{name}/restart on the real daemon, with a recording stand-in launchctl on PATH. */
class EngineRestartApiIT {
    static final ObjectMapper JSON = new ObjectMapper();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    Process daemon(RecordingLaunchctl launchctl, int port, boolean token) throws Exception {
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:" + port + "\n"
                + (token ? "  auth_token: ${TW_TEST_TOKEN}\n" : "") + ServiceIT.ENGINES);
        Process p = JarRun.builder(Map.of("PATH", launchctl.path(), "TW_TEST_TOKEN", "t0ken-for-tests"), dir,
                        "run", "--config", cfg.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (!p.isAlive()) {
                throw new AssertionError("daemon exited with " + p.exitValue() + ": " + Files.readString(dir.resolve("daemon.log")));
            }
            try {
                return get(port, "/healthz").statusCode() > 0;
            } catch (java.io.IOException e) {
                return false;
            }
        });
        return p;
    }

    HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> restart(int port, String engine, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/engines/" + engine + "/restart"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void with_a_token_the_api_kickstarts_the_engines_launchd_label() throws Exception {
        RecordingLaunchctl launchctl = new RecordingLaunchctl(dir.resolve("fake"));
        int port = freePort();
        Process p = daemon(launchctl, port, true);
        try {
            assertThat(restart(port, "mlx", null).statusCode()).isEqualTo(401);
            assertThat(restart(port, "mlx", "wrong").statusCode()).isEqualTo(401);
            assertThat(launchctl.calls()).isEmpty();

            HttpResponse<String> ok = restart(port, "mlx", "t0ken-for-tests");
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            JsonNode body = JSON.readTree(ok.body());
            assertThat(body.get("command").asText()).isEqualTo("launchctl kickstart -k gui/" + UserId.current() + "/com.example.mlx");
            assertThat(body.get("exit_code").asInt()).isZero();
            assertThat(launchctl.calls()).containsExactly(List.of("kickstart", "-k", "gui/" + UserId.current() + "/com.example.mlx"));

            HttpResponse<String> noLabel = restart(port, "ollama", "t0ken-for-tests");
            assertThat(noLabel.statusCode()).isEqualTo(409);
            assertThat(noLabel.body()).contains("no launchd_label");
            HttpResponse<String> unknown = restart(port, "nope", "t0ken-for-tests");
            assertThat(unknown.statusCode()).isEqualTo(404);
            assertThat(unknown.body()).contains("no engine named 'nope'");

            launchctl.exitWith(113, "Could not find service\n");
            HttpResponse<String> failed = restart(port, "mlx", "t0ken-for-tests");
            assertThat(failed.statusCode()).isEqualTo(502);
            assertThat(JSON.readTree(failed.body()).get("exit_code").asInt()).isEqualTo(113);
            assertThat(launchctl.calls()).hasSize(2);
            assertThat(Files.readString(dir.resolve("daemon.log"))).doesNotContain("t0ken-for-tests");
        } finally {
            p.destroy();
            p.waitFor();
        }
    }

    @Test
    void without_a_token_the_route_is_forbidden_and_says_why() throws Exception {
        RecordingLaunchctl launchctl = new RecordingLaunchctl(dir.resolve("fake"));
        int port = freePort();
        Process p = daemon(launchctl, port, false);
        try {
            HttpResponse<String> r = restart(port, "mlx", null);
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(JSON.readTree(r.body()).get("error").asText()).contains("server.auth_token");
            assertThat(launchctl.calls()).isEmpty();
        } finally {
            p.destroy();
            p.waitFor();
        }
    }

    @Test
    void without_launchctl_the_answer_does_not_reveal_the_daemons_path() throws Exception {
        int port = freePort();
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:" + port + "\n  auth_token: ${TW_TEST_TOKEN}\n" + ServiceIT.ENGINES);
        String secretPath = dir.resolve("private-bin-of-the-daemon").toString();
        Process p = JarRun.builder(Map.of("PATH", secretPath, "TW_TEST_TOKEN", "t0ken-for-tests"), dir,
                        "run", "--config", cfg.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
        try {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                try {
                    return get(port, "/healthz").statusCode() > 0;
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            HttpResponse<String> r = restart(port, "mlx", "t0ken-for-tests");
            assertThat(r.statusCode()).isEqualTo(501);
            assertThat(r.body()).contains("launchctl not found").doesNotContain("private-bin-of-the-daemon");
        } finally {
            p.destroy();
            p.waitFor();
        }
    }
}
