package io.tailwatch.daemon.ready;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's HAProxy in front of two serial engine simulators (one slot each, the way mlx_lm.server serves), each
 * reached through its agent's metering proxy and health-checked on its agent's ready route with the read-only
 * token (the config of docs/routing.md). While one engine has requests waiting, HAProxy takes it out and new
 * requests go to the other; once it drains, it is taken back. Loopback only; about 15 s.
 */
class HaproxyReadyIT {

    @Test
    void saturatedEngineLosesNewRequestsAndGetsThemBackWhenItDrains(@TempDir Path dir) throws Exception {
        String haproxy = Haproxy.binary();
        SimulatorOptions serial = SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(20), 100).withSlots(1);
        try (EngineSimulator simA = EngineSimulator.start("openai", "127.0.0.1", 0, serial);
             EngineSimulator simB = EngineSimulator.start("openai", "127.0.0.1", 0, serial);
             AgentProcess agentA = ReadyAgents.launch(dir, "a", "http://127.0.0.1:" + simA.port(), "");
             AgentProcess agentB = ReadyAgents.launch(dir, "b", "http://127.0.0.1:" + simB.port(), "")) {
            agentA.awaitListening();
            agentB.awaitListening();
            await().atMost(Duration.ofSeconds(30)).until(() -> ReadyAgents.proxyPort(agentA) > 0 && ReadyAgents.proxyPort(agentB) > 0);
            int proxyA = ReadyAgents.proxyPort(agentA);
            int proxyB = ReadyAgents.proxyPort(agentB);
            await().atMost(Duration.ofSeconds(20)).until(() -> ReadyAgents.ready(agentA).statusCode() == 200
                    && ReadyAgents.ready(agentB).statusCode() == 200);

            int front = freePort();
            int stats = freePort();
            Path cfg = Files.writeString(dir.resolve("haproxy.cfg"), Haproxy.config(front, stats,
                    List.of(new Haproxy.Server("a", proxyA, agentA.port()), new Haproxy.Server("b", proxyB, agentB.port())),
                    ReadyAgents.READ_TOKEN));
            Process check = new ProcessBuilder(haproxy, "-c", "-f", cfg.toString()).redirectErrorStream(true).start();
            String checked = new String(check.getInputStream().readAllBytes());
            assertThat(check.waitFor()).as("haproxy -c: %s", checked).isZero();
            Process hp = new ProcessBuilder(haproxy, "-db", "-f", cfg.toString()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
            try {
                Haproxy stat = new Haproxy(stats);
                // HAProxy's stats port opens a moment after its start (longer on a busy machine): refused until then.
                await().atMost(Duration.ofSeconds(10)).ignoreException(java.net.ConnectException.class)
                        .until(() -> stat.up("a") && stat.up("b"));

                // Saturate A directly through its proxy: one request generating, one waiting for the slot.
                List<CompletableFuture<HttpResponse<String>>> load = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    load.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return ReadyAgents.chat(proxyA, "saturating", 250);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }));
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> ReadyAgents.ready(agentA).statusCode() == 503);
                HttpResponse<String> notReady = ReadyAgents.ready(agentA);
                assertThat(notReady.body()).contains("\"queue_full\"");
                assertThat(notReady.headers().firstValue("Retry-After")).isPresent();
                await().atMost(Duration.ofSeconds(5)).until(() -> !stat.up("a"));

                // New requests through HAProxy while A is saturated: every one goes to B.
                for (int i = 0; i < 3; i++) {
                    await().atMost(Duration.ofSeconds(5)).until(() -> stat.up("b") && !stat.up("a"));
                    assertThat(ReadyAgents.chat(front, "routed-while-saturated-" + i, 3).statusCode()).isEqualTo(200);
                }
                assertThat(marked(simB, "routed-while-saturated-")).isEqualTo(3);
                assertThat(marked(simA, "routed-while-saturated-")).isZero();
                assertThat(load).allSatisfy(f -> assertThat(f.isDone()).as("A still busy while B served").isFalse());

                // A drains: HAProxy takes it back and it gets new requests again.
                for (CompletableFuture<HttpResponse<String>> f : load) {
                    assertThat(f.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> stat.up("a"));
                for (int i = 0; i < 4 && marked(simA, "routed-after-drain-") == 0; i++) {
                    await().atMost(Duration.ofSeconds(5)).until(() -> stat.up("a") && stat.up("b"));
                    assertThat(ReadyAgents.chat(front, "routed-after-drain-" + i, 3).statusCode()).isEqualTo(200);
                }
                assertThat(marked(simA, "routed-after-drain-")).isPositive();
            } finally {
                hp.destroy();
                if (!hp.waitFor(5, TimeUnit.SECONDS)) {
                    hp.destroyForcibly();
                }
            }
        }
    }

    /** Requests the simulator received whose prompt starts with {@code mark}. */
    static long marked(EngineSimulator sim, String mark) {
        return sim.requests().stream()
                .filter(r -> r.path("messages").path(0).path("content").asText().startsWith(mark)).count();
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The HAProxy binary, its config for the test and its stats page. */
    record Haproxy(int statsPort) {
        record Server(String name, int port, int checkPort) {
        }

        static String binary() {
            for (String d : (System.getenv().getOrDefault("PATH", "/usr/bin") + ":/usr/sbin:/sbin").split(":")) {
                Path p = Path.of(d, "haproxy");
                if (Files.isExecutable(p)) {
                    return p.toString();
                }
            }
            if ("1".equals(System.getenv("TAILWATCH_REQUIRE_HAPROXY"))) {
                throw new AssertionError("haproxy is required (TAILWATCH_REQUIRE_HAPROXY=1) but not installed");
            }
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "haproxy not installed (apt-get install haproxy)");
            return null;
        }

        /** The config of docs/routing.md ("HAProxy"), with loopback ports and fast checks. */
        static String config(int front, int stats, List<Server> servers, String token) {
            StringBuilder b = new StringBuilder("""
                    global
                        maxconn 256

                    defaults
                        mode http
                        timeout connect 2s
                        timeout client 60s
                        timeout server 60s
                        timeout check 1s

                    frontend llm
                        bind 127.0.0.1:%d
                        default_backend macs

                    backend macs
                        balance roundrobin
                        option httpchk GET /api/v1/engines/llm/ready
                        http-check send hdr Host localhost hdr Authorization "Bearer %s"
                        http-check expect status 200
                        default-server inter 200ms fall 1 rise 1
                    """.formatted(front, token));
            for (Server s : servers) {
                b.append("    server ").append(s.name()).append(" 127.0.0.1:").append(s.port()).append(" check port ")
                        .append(s.checkPort()).append('\n');
            }
            b.append("""

                    listen stats
                        bind 127.0.0.1:%d
                        stats enable
                        stats uri /stats
                    """.formatted(stats));
            return b.toString();
        }

        /** Whether HAProxy has {@code server} of backend macs UP now (its CSV stats). */
        boolean up(String server) throws Exception {
            String csv = ReadyAgents.HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statsPort + "/stats;csv"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
            String[] lines = csv.split("\n");
            List<String> head = List.of(lines[0].replaceFirst("^# ", "").split(","));
            Map<String, String> row = new HashMap<>();
            for (String l : lines) {
                String[] f = l.split(",", -1);
                if (f.length > 1 && f[0].equals("macs") && f[1].equals(server)) {
                    for (int i = 0; i < head.size() && i < f.length; i++) {
                        row.put(head.get(i), f[i]);
                    }
                }
            }
            return "UP".equals(row.get("status"));
        }
    }
}
