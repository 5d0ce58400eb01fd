package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.ProxyMetrics;
import io.tailwatch.metrics.SelfMetrics;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.FaultServer;
import io.tailwatch.testing.RecordingAlertmanager;
import io.tailwatch.testing.RecordingEngine;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hostile review's findings, each through the release launcher (bin/tailwatch, the shipped JVM flags and
 * 24 MiB heap): requests the proxy refuses are counted and never metered; an engine's out-of-range figures reach
 * neither {@code /metrics} nor the status API; a SIGHUP that changes only a lane leaves a firing EngineDown firing;
 * and configs that {@code config check} must refuse are refused with exit 2, naming both keys.
 */
@EnabledOnOs(OS.LINUX)
class DoorThroughLauncherIT {
    @TempDir
    Path dir;

    /** The value of the one series whose line starts with {@code name} and holds every label in {@code labels}, or null. */
    private static Double series(String metrics, String name, String... labels) {
        for (String line : metrics.split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            String head = line.substring(0, line.lastIndexOf(' '));
            boolean all = true;
            for (String l : labels) {
                all &= head.contains(l);
            }
            if (all) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return null;
    }

    private static int proxyPort(AgentProcess agent, String engine) throws Exception {
        for (JsonNode p : Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("proxies")) {
            if (p.path("engine").asText().equals(engine) && p.path("state").asText().equals("running")) {
                String listen = p.path("listen").asText();
                return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
            }
        }
        return -1;
    }

    /** When the agent last sampled the host (its rules are evaluated at each sample). */
    private static String sampledAt(AgentProcess agent) throws Exception {
        return Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("host").path("sampled_at").asText();
    }

    private static List<String> alertStates(AgentProcess agent, String name) throws Exception {
        List<String> states = new ArrayList<>();
        for (JsonNode a : Json.MAPPER.readTree(agent.get("/api/v1/alerts").body()).path("alerts")) {
            if (a.path("name").asText().equals(name)) {
                states.add(a.path("state").asText().toLowerCase());
            }
        }
        return states;
    }

    /** Writes one raw request on a new connection and returns the status code of its answer. */
    private static int raw(int port, String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
                line.append((char) c);
            }
            return Integer.parseInt(line.toString().split(" ")[1]);
        }
    }

    /** An engine's /metrics whose KV use and Metal memory are out of any range; its running figure is good. */
    private static void hostileFigures(String request, java.io.OutputStream out) throws Exception {
        String body = request.startsWith("GET /metrics")
                ? "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\n"
                + "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc 1e300\n"
                + "# TYPE llamacpp:kv_cache_tokens gauge\nllamacpp:kv_cache_tokens 1e300\n"
                : "{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}";
        FaultServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n" + body);
    }

    /**
     * 25 requests of a lane with an SLO, each refused by the proxy (a malformed chunk in the client's body: 400),
     * are counted as rejected and enter no window: no lane window series, no goodput, LaneGoodputLow not pending
     * (it needs 20 requests in the window, and before the fix these 25 put it pending). One good request then
     * makes the window exactly one request, met. Beside it, an engine reporting a KV use of 1e300 and a KV
     * token count of 1e300: neither reaches /metrics or the status API, both are counted as rejected, and its good
     * running figure is exported.
     */
    @Test
    void refusedRequestsAndOutOfRangeEngineFiguresReachNoWindowNoScrapeAndNoStatus() throws Exception {
        try (RecordingEngine engine = RecordingEngine.start(); FaultServer kv = new FaultServer(DoorThroughLauncherIT::hostileFigures)) {
            Path config = dir.resolve("tailwatch.yaml");
            Files.writeString(config, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                    + "  - name: rec\n    api: openai\n    url: http://127.0.0.1:" + engine.port() + "\n    scenarios: []\n"
                    + "    health:\n      interval: 1h\n    signals:\n      source: none\n"
                    + "    proxy:\n      listen: 127.0.0.1:0\n      connection_rest: 0s\n      lanes:\n"
                    + "        - name: interactive\n          header: {name: X-Lane, value: i}\n"
                    + "          slo: {ttft_p95: 5s, e2e_p95: 30s, target: 0.95}\n"
                    + "  - name: kv\n    api: openai\n    url: http://127.0.0.1:" + kv.port() + "\n    scenarios: []\n"
                    + "    health:\n      interval: 1h\n    signals:\n      source: vllm\n      interval: 1s\n"
                    + "rules:\n  LaneGoodputLow: {for: 1s}\n");
            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", config.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).until(() -> proxyPort(agent, "rec") > 0);
                int port = proxyPort(agent, "rec");
                for (int i = 0; i < 25; i++) {
                    assertThat(raw(port, "POST /json HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Lane: i\r\n"
                            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\nbroken\r\n0\r\n\r\n"))
                            .as("refused request %d", i).isEqualTo(400);
                }
                String lane = "tailwatch_lane=\"interactive\"";
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(series(agent.get("/metrics").body(),
                        ProxyMetrics.REQUESTS.prometheusName(), lane, "tailwatch_proxy_outcome=\"rejected\"")).isEqualTo(25.0));
                String atRefusal = agent.get("/metrics").body();
                assertThat(series(atRefusal, ProxyMetrics.LANE_WINDOW_REQUESTS.prometheusName(), lane)).as("no request in the window").isIn(null, 0.0);
                assertThat(series(atRefusal, ProxyMetrics.LANE_WINDOW_GOODPUT.prometheusName(), lane)).as("no goodput").isNull();
                assertThat(series(atRefusal, ProxyMetrics.LANE_GOOD.prometheusName(), lane)).as("nothing judged").isIn(null, 0.0);
                // The rules run at each host sample: after two more samples the refusals would have made it pending.
                String seen = sampledAt(agent);
                await().atMost(Duration.ofSeconds(10)).until(() -> !sampledAt(agent).equals(seen));
                String next = sampledAt(agent);
                await().atMost(Duration.ofSeconds(10)).until(() -> !sampledAt(agent).equals(next));
                assertThat(alertStates(agent, "LaneGoodputLow")).isEmpty();

                assertThat(raw(port, "POST /json HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Lane: i\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")).isEqualTo(200);
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    String m = agent.get("/metrics").body();
                    assertThat(series(m, ProxyMetrics.LANE_WINDOW_REQUESTS.prometheusName(), lane)).isEqualTo(1.0);
                    assertThat(series(m, ProxyMetrics.LANE_WINDOW_GOODPUT.prometheusName(), lane)).isEqualTo(1.0);
                });

                String kvEngine = "tailwatch_engine_name=\"kv\"";
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    String m = agent.get("/metrics").body();
                    assertThat(series(m, EngineSideMetrics.REQUESTS.prometheusName(), kvEngine)).as("the good figure").isEqualTo(1.0);
                    assertThat(series(m, SelfMetrics.INPUT_REJECTED.prometheusName(), "tailwatch_input_field=\"kv_cache_usage\""))
                            .isNotNull().isGreaterThanOrEqualTo(1.0);
                    assertThat(series(m, SelfMetrics.INPUT_REJECTED.prometheusName(), "tailwatch_input_field=\"details\""))
                            .isNotNull().isGreaterThanOrEqualTo(1.0);
                });
                String m = agent.get("/metrics").body();
                assertThat(series(m, EngineSideMetrics.KV_CACHE_USAGE.prometheusName(), kvEngine)).as("1e300 is no KV use").isNull();
                assertThat(m).doesNotContainPattern("(?i)e\\+?300");
                String status = agent.get("/api/v1/status").body();
                assertThat(status).as("read, and its figure left out").contains("\"llamacpp\"")
                        .doesNotContain("llamacpp:kv_cache_tokens").doesNotContainPattern("(?i)e\\+?300");
            }
        }
    }

    /**
     * An engine that was up dies; EngineDown fires and reaches Alertmanager. A SIGHUP whose config changes only the
     * engine's proxy lane keeps its watch: EngineDown is sent again, never resolved, and the engine stays {@code down}
     * (not {@code never_reachable}, which is never paged).
     */
    @Test
    void aSighupChangingOnlyALaneLeavesAFiringEngineDownFiring() throws Exception {
        RecordingAlertmanager am = RecordingAlertmanager.start();
        EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"));
        try {
            String yaml = "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 500ms\nengines:\n"
                    + "  - name: sim\n    api: openai\n    url: http://127.0.0.1:" + sim.port() + "\n    scenarios: []\n"
                    + "    health: {interval: 1s, timeout: 500ms}\n    signals: {source: none}\n"
                    + "    proxy:\n      listen: 127.0.0.1:0\n      lanes:\n        - name: interactive\n"
                    + "          header: {name: X-Lane, value: %s}\n"
                    + "rules:\n  EngineDown: {for: 1s}\n"
                    + "alerts:\n  baseline: {file: " + dir.resolve("baselines.json") + "}\n"
                    + "  alertmanagers: [\"" + am.url() + "\"]\n"
                    + "  alertmanager_resend_delay: 1s\n  alertmanager_timeout: 2s\n";
            Path config = dir.resolve("tailwatch.yaml");
            Files.writeString(config, yaml.formatted("i"));
            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of("TAILWATCH_DATA_DIR", dir.resolve("data").toString()),
                    "run", "--config", config.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).until(() -> "up".equals(engineState(agent)));
                sim.close();
                await().atMost(Duration.ofSeconds(30)).until(() -> alertStates(agent, "EngineDown").contains("firing"));
                await().atMost(Duration.ofSeconds(10)).until(() -> am.postsWith("EngineDown", 0) > 0);

                Files.writeString(config, yaml.formatted("interactive"));
                Process hup = new ProcessBuilder("kill", "-HUP", Long.toString(agent.process().pid())).start();
                assertThat(hup.waitFor()).isZero();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(agent.stderr()).contains("config reloaded"));
                int seen = am.received();
                await().atMost(Duration.ofSeconds(20)).until(() -> am.postsWith("EngineDown", seen) >= 2);
                am.assertNeverResolved("EngineDown");
                assertThat(alertStates(agent, "EngineDown")).containsExactly("firing");
                assertThat(engineState(agent)).isEqualTo("down");
            }
        } finally {
            sim.close();
            am.close();
        }
    }

    private static String engineState(AgentProcess agent) throws Exception {
        for (JsonNode e : Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("engines")) {
            if (e.path("name").asText().equals("sim")) {
                return e.path("state").asText();
            }
        }
        return "";
    }

    /**
     * Configs each key of which is valid alone but that the agent cannot serve: {@code config check} through the
     * launcher refuses each with exit 2 and names both keys. The checks run side by side (each is its own JVM).
     */
    @Test
    void configsThatCannotBeServedAreRefusedNamingBothKeys() throws Exception {
        int agentPort;
        int enginePort;
        try (ServerSocket a = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
             ServerSocket b = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            agentPort = a.getLocalPort();
            enginePort = b.getLocalPort();
        }
        String server = "server:\n  listen: 127.0.0.1:" + agentPort + "\n";
        String engineA = "  - name: a\n    api: openai\n    url: http://localhost:" + enginePort + "\n    scenarios: []\n";
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put("proxy-on-own-engine", server + "engines:\n" + engineA
                + "    proxy: {listen: 127.0.0.1:" + enginePort + "}\n");
        cases.put("proxies-pointing-at-each-other", server + "engines:\n"
                + "  - name: a\n    api: openai\n    url: http://127.0.0.1:" + (enginePort + 1) + "\n    scenarios: []\n"
                + "    proxy: {listen: 127.0.0.1:" + (enginePort + 2) + "}\n"
                + "  - name: b\n    api: openai\n    url: http://localhost:" + (enginePort + 2) + "\n    scenarios: []\n"
                + "    proxy: {listen: 127.0.0.1:" + (enginePort + 1) + "}\n");
        cases.put("proxy-on-agent-port", server + "engines:\n" + engineA
                + "    proxy: {listen: localhost:" + agentPort + "}\n");
        cases.put("engine-is-the-agent", server + "engines:\n"
                + "  - name: a\n    api: openai\n    url: http://localhost:" + agentPort + "\n    scenarios: []\n");
        cases.put("lane-header-crlf", server + "engines:\n" + engineA
                + "    proxy:\n      listen: 127.0.0.1:0\n      lanes:\n        - name: l\n"
                + "          header: {name: X-Lane, value: \"a\\r\\nX-Evil: 1\"}\n");
        cases.put("lane-on-authorization", server + "engines:\n" + engineA
                + "    proxy:\n      listen: 127.0.0.1:0\n      lanes:\n        - name: l\n"
                + "          header: {name: Authorization, value: Bearer sk-1}\n");
        Map<String, List<String>> named = Map.of(
                "proxy-on-own-engine", List.of("engines[0].proxy.listen", "engines[0].url"),
                "proxies-pointing-at-each-other", List.of("engines[0].proxy.listen", "engines[1].url"),
                "proxy-on-agent-port", List.of("engines[0].proxy.listen", "server.listen"),
                "engine-is-the-agent", List.of("engines[0].url", "server.listen"),
                "lane-header-crlf", List.of("header.value"),
                "lane-on-authorization", List.of("header.name", "api_key_sha256"));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Map<String, Future<AgentProcess.Result>> runs = new LinkedHashMap<>();
            for (Map.Entry<String, String> c : cases.entrySet()) {
                Path file = dir.resolve(c.getKey() + ".yaml");
                Files.writeString(file, c.getValue());
                Path own = Files.createDirectories(dir.resolve("run-" + c.getKey()));
                runs.put(c.getKey(), pool.submit(() -> {
                    try (AgentProcess p = AgentProcess.startShipped(own, Map.of(), "config", "check", file.toString())) {
                        assertThat(p.process().waitFor(90, TimeUnit.SECONDS)).as("finished").isTrue();
                        return new AgentProcess.Result(p.process().exitValue(), p.stdout(), p.stderr());
                    }
                }));
            }
            for (Map.Entry<String, Future<AgentProcess.Result>> r : runs.entrySet()) {
                AgentProcess.Result result = r.getValue().get(120, TimeUnit.SECONDS);
                assertThat(result.exitCode()).as(r.getKey() + ": " + result.stderr()).isEqualTo(2);
                for (String key : named.get(r.getKey())) {
                    assertThat(result.stderr()).as(r.getKey()).contains(key);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
