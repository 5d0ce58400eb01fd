package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.OtlpReceiver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile and unlucky input against the real jar: exit codes, signals, headers, logs. */
class HostileInputIT {
    private static Path config(Path dir, String yaml) throws IOException {
        Path f = dir.resolve("tailwatch.yaml");
        Files.writeString(f, "server:\n  listen: 127.0.0.1:0\n" + yaml);
        return f;
    }

    @Test
    void otlpHeaderValuesReachTheCollectorExactlyAndConfigCheckAgreesWithRun(@TempDir Path dir) throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver()) {
            Path cfg = config(dir, "host:\n  interval: 500ms\nengines: []\notlp:\n  enabled: true\n  endpoint: "
                    + receiver.endpoint() + "\n  interval: 1s\n  headers:\n    authorization: \"Basic dXNlcjpw%2B+/==\"\n"
                    + "    x-list: \"a,b=c\"\n");
            assertThat(AgentProcess.run(Map.of(), "config", "check", cfg.toString()).exitCode()).isZero();
            try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).until(() -> receiver.received() > 0);
                assertThat(receiver.lastHeaders()).containsEntry("authorization", "Basic dXNlcjpw%2B+/==")
                        .containsEntry("x-list", "a,b=c");
            }
        }
    }

    @Test
    void aBrokenOtelHeadersVariableFailsConfigCheckAndRunAlike(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "engines: []\notlp:\n  enabled: true\n");
        Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_HEADERS", "novalue");
        AgentProcess.Result check = AgentProcess.run(env, "config", "check", cfg.toString());
        AgentProcess.Result run = AgentProcess.run(env, "run", "--config", cfg.toString());
        assertThat(check.exitCode()).as(check.stderr()).isEqualTo(2);
        assertThat(check.stderr()).contains("OTEL_EXPORTER_OTLP_HEADERS");
        assertThat(run.exitCode()).as(run.stderr()).isEqualTo(2);
        assertThat(run.stderr()).contains("OTEL_EXPORTER_OTLP_HEADERS").doesNotContain("\tat ");
    }

    @Test
    void anEmptyTokenVariableStopsRunWithExitTwo(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "  auth_token: ${TW_TOKEN}\nengines: []\n");
        AgentProcess.Result r = AgentProcess.run(Map.of("TW_TOKEN", ""), "run", "--config", cfg.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("server.auth_token").contains("empty");
    }

    @Test
    void aNulInAPathIsExitTwoNamingTheKey(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "host:\n  procfs: \"/pr\\0oc\"\nengines: []\n");
        for (String cmd : List.of("check", "run")) {
            AgentProcess.Result r = cmd.equals("check") ? AgentProcess.run(Map.of(), "config", "check", cfg.toString())
                    : AgentProcess.run(Map.of(), "run", "--config", cfg.toString());
            assertThat(r.exitCode()).as(cmd + ": " + r.stderr()).isEqualTo(2);
            assertThat(r.stderr()).contains("host.procfs").doesNotContain("\tat ");
        }
    }

    @Test
    void listeningBeyondLoopbackIsWarnedAboutByConfigCheck(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, "server:\n  listen: 0.0.0.0:9531\nengines: []\n");
        AgentProcess.Result r = AgentProcess.run(Map.of(), "config", "check", cfg.toString());
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout() + r.stderr()).contains("warning").contains("0.0.0.0:9531")
                .contains("reachable from other hosts");
    }

    @Test
    void aBusyPortSaysAddressAlreadyInUse(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Path cfg = dir.resolve("c.yaml");
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:" + taken.getLocalPort() + "\nengines: []\n");
            AgentProcess.Result r = AgentProcess.run(Map.of(), "run", "--config", cfg.toString());
            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.stderr()).contains("127.0.0.1:" + taken.getLocalPort()).contains("address already in use");
        }
    }

    @Test
    void sigtermWithAHungCollectorEndsWithinThreeSeconds(@TempDir Path dir) throws Exception {
        List<Socket> held = new ArrayList<>();
        try (ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        held.add(hung.accept()); // accepts and never answers
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Path cfg = config(dir, "host:\n  interval: 500ms\nengines: []\notlp:\n  enabled: true\n  endpoint: "
                    + "http://127.0.0.1:" + hung.getLocalPort() + "\n  interval: 1s\n");
            try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(20)).until(() -> !held.isEmpty());
                long t0 = System.nanoTime();
                agent.terminate(Duration.ofSeconds(15));
                long took = Duration.ofNanos(System.nanoTime() - t0).toMillis();
                assertThat(took).as("SIGTERM took %d ms", took).isLessThan(3_500);
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void sighupReloadsAValidConfigAndKeepsTheOldOneOnError(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "host:\n  interval: 500ms\nengines: []\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            int port = agent.awaitListening();
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/healthz").statusCode() == 200);
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:" + port + "\n  bogus: 1\nengines: []\n");
            signal(agent, "HUP");
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.stderr().contains("reload"));
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.stderr().contains("server.bogus"));
            assertThat(agent.process().isAlive()).isTrue();
            assertThat(agent.get("/healthz").statusCode()).isEqualTo(200);

            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:" + port + "\n  auth_token: reloaded-token\n"
                    + "host:\n  interval: 500ms\nengines: []\n");
            signal(agent, "HUP");
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                try {
                    return agent.get("/api/v1/status").statusCode() == 401;
                } catch (IOException e) {
                    return false;
                }
            });
            assertThat(agent.get("/api/v1/status", "Authorization", "Bearer reloaded-token").statusCode()).isEqualTo(200);
            assertThat(agent.process().isAlive()).isTrue();
            assertThat(agent.stderr()).doesNotContain("reloaded-token");
        }
    }

    @Test
    void aForeignHostHeaderIsRefusedAndLoopbackNamesWork(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "  allowed_hosts: [mac-mini.local]\nengines: []\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            int port = agent.awaitListening();
            assertThat(rawStatus(port, "evil.example:" + port, "/metrics")).isEqualTo(421);
            assertThat(rawStatus(port, "evil.example", "/api/v1/status")).isEqualTo(421);
            for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port, "localhost",
                    "mac-mini.local:" + port)) {
                assertThat(rawStatus(port, host, "/healthz")).as(host).isIn(200, 503);
            }
        }
    }

    @Test
    void credentialsInAnEngineUrlAndVersionsWithLineBreaksNeverReachLogOrStatus(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "host:\n  interval: 500ms\nengines:\n  - name: e1\n    api: openai\n"
                + "    url: http://user:hunter2@127.0.0.1:1\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/api/v1/status").body().contains("e1"));
            String status = agent.get("/api/v1/status").body();
            assertThat(status).doesNotContain("hunter2").contains("127.0.0.1:1");
            assertThat(agent.stderr() + agent.stdout()).doesNotContain("hunter2");
        }
    }

    @Test
    void clientsThatPipelineAndNeverReadCannotStarveHealthzOrMetrics(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "host:\n  interval: 500ms\nengines: []\n");
        List<Socket> slow = new ArrayList<>();
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            int port = agent.awaitListening();
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/healthz").statusCode() == 200);
            // 3,000 pipelined scrapes per connection: far more than the socket buffers hold, so without a bound
            // every worker thread ends up parked in a write to a client that never reads.
            byte[] pipelined = ("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").repeat(3_000)
                    .getBytes(StandardCharsets.US_ASCII);
            long attack = System.nanoTime();
            for (int i = 0; i < 12; i++) {
                Socket s = new Socket();
                s.setReceiveBufferSize(4096);
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                slow.add(s);
                Thread writer = new Thread(() -> {
                    try {
                        s.getOutputStream().write(pipelined); // and never read
                    } catch (IOException e) {
                        // the agent closed it
                    }
                });
                writer.setDaemon(true);
                writer.start();
            }
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                    .until(() -> timedStatus(port, "/healthz", 1_000) == 200);
            long t0 = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                assertThat(timedStatus(port, "/healthz", 5_000)).isEqualTo(200);
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("five /healthz in a row, ms").isLessThan(5_000);
            System.out.printf("slow readers: /healthz answering again %d ms after the attack began%n",
                    (t0 - attack) / 1_000_000);
            await().atMost(Duration.ofSeconds(12)).until(() -> rawStatus(port, "127.0.0.1", "/metrics") == 200);
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    @Test
    void duplicateHostHeadersDoNotFloodTheLog(@TempDir Path dir) throws Exception {
        Path cfg = config(dir, "engines: []\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            int port = agent.awaitListening();
            long before = agent.stderr().length();
            for (int i = 0; i < 500; i++) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                    s.setSoTimeout(5000);
                    s.getOutputStream().write(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n"
                            + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    s.getInputStream().readAllBytes();
                }
            }
            assertThat(agent.get("/healthz").statusCode()).isIn(200, 503);
            long grown = agent.stderr().length() - before;
            assertThat(grown).as("log bytes for 500 bad requests:\n" + agent.stderr()).isLessThan(20_000);
        }
    }

    @Test
    void failedOtlpExportsLogNoStackTraces(@TempDir Path dir) throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver()) {
            receiver.answer(400);
            Path cfg = config(dir, "host:\n  interval: 500ms\nengines: []\notlp:\n  enabled: true\n  endpoint: "
                    + receiver.endpoint() + "\n  interval: 1s\n");
            try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).until(() -> agent.get("/metrics").body()
                        .matches("(?s).*tailwatch_otlp_export_failures_total [3-9].*"));
                String log = agent.stderr();
                assertThat(log).contains("OTLP export failed").doesNotContain("\tat io.opentelemetry");
            }
        }
    }

    static void signal(AgentProcess agent, String sig) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(agent.process().pid())).start();
        assertThat(kill.waitFor()).isZero();
    }

    static int timedStatus(int port, String path, int timeoutMillis) throws IOException {
        return rawStatus(port, "127.0.0.1:" + port, path, timeoutMillis);
    }

    static int rawStatus(int port, String host, String path) throws IOException {
        return rawStatus(port, host, path, 5_000);
    }

    /** Sends one GET with exactly the given Host header and returns the status code. */
    static int rawStatus(int port, String host, String path, int timeoutMillis) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            s.setSoTimeout(timeoutMillis);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(12);
            String line = new String(head, StandardCharsets.US_ASCII);
            return Integer.parseInt(line.substring(9, 12));
        }
    }
}
