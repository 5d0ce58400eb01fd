package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.RecordingEngine;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar with a metering proxy in front of an engine that records what it saw (bodies hashed on both
 * sides, headers, connections, when each chunk left) and in front of the engine simulator (tokens, a client
 * that leaves mid-stream), all on loopback.
 */
class ProxyIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    static RecordingEngine engine;
    static EngineSimulator sim;
    /** A serial engine (one slot): its interactive and batch lanes queue behind each other. */
    static EngineSimulator serial;
    static int serialProxy;
    static int deadPort;
    static AgentProcess agent;
    static int recProxy;
    static int simProxy;
    static int deadProxy;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        engine = RecordingEngine.start();
        sim = EngineSimulator.start("openai", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(20), 50).withSlots(4));
        serial = EngineSimulator.start("openai", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(20), 100).withSlots(1));
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                + engineYaml("rec", engine.port()) + "      connection_rest: 0s\n" + LANES + engineYaml("sim", sim.port()) + engineYaml("dead", deadPort)
                + engineYaml("serial", serial.port()) + SERIAL_LANES);
        agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString());
        agent.awaitListening();
        await().atMost(Duration.ofSeconds(30)).until(() -> proxyPort("dead") > 0);
        recProxy = proxyPort("rec");
        simProxy = proxyPort("sim");
        deadProxy = proxyPort("dead");
        await().atMost(Duration.ofSeconds(30)).until(() -> proxyPort("serial") > 0);
        serialProxy = proxyPort("serial");
    }

    /** SHA-256 of "batch-key". */
    static final String BATCH_KEY_SHA = HexFormat.of().formatHex(RecordingEngine.sha().digest("batch-key".getBytes(StandardCharsets.UTF_8)));
    static final String LANES = "      lanes:\n"
            + "        - name: interactive\n          header: {name: X-Tailwatch-Lane, value: interactive}\n"
            + "          slo: {ttft_p95: 5s, e2e_p95: 10s, target: 0.9}\n"
            + "        - name: batch\n          api_key_sha256: " + BATCH_KEY_SHA + "\n          slo: {e2e_p95: 1ms}\n"
            + "        - name: agents\n          path_prefix: /ndjson\n";

    static final String SERIAL_LANES = "      lanes:\n"
            + "        - name: interactive\n          header: {name: X-Tailwatch-Lane, value: interactive}\n"
            + "          slo: {ttft_p95: 300ms, target: 0.9}\n"
            + "        - name: batch\n          header: {name: X-Tailwatch-Lane, value: batch}\n";

    static String engineYaml(String name, int port) {
        return "  - name: " + name + "\n    api: openai\n    url: http://127.0.0.1:" + port + "\n    scenarios: []\n"
                + "    health:\n      interval: 1h\n    signals:\n      source: none\n    proxy:\n      listen: 127.0.0.1:0\n";
    }

    static int proxyPort(String engineName) throws Exception {
        return proxyPort(agent, engineName);
    }

    /** The port of {@code engineName}'s proxy once it runs, else -1. */
    static int proxyPort(AgentProcess agent, String engineName) throws Exception {
        HttpResponse<String> r = agent.get("/api/v1/status");
        if (r.statusCode() != 200) {
            return -1;
        }
        for (JsonNode p : Json.MAPPER.readTree(r.body()).path("proxies")) {
            if (p.path("engine").asText().equals(engineName) && p.path("state").asText().equals("running")) {
                String listen = p.path("listen").asText();
                return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
            }
        }
        return -1;
    }

    /** The proxy's requests in flight as the status reports them now. */
    static int inFlight(String engineName) throws Exception {
        for (JsonNode p : Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("proxies")) {
            if (p.path("engine").asText().equals(engineName)) {
                return p.path("in_flight").asInt(-1);
            }
        }
        return -1;
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (sim != null) {
            sim.close();
        }
        if (serial != null) {
            serial.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    static URI at(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    static String sha(byte[] b) {
        return HexFormat.of().formatHex(RecordingEngine.sha().digest(b));
    }

    static double metric(String series) throws Exception {
        return agent.series(series);
    }

    @Test
    void streamedAndWholeBodiesPassByteForByteBothWays() throws Exception {
        for (String path : List.of("/sse?n=40", "/ndjson?n=40", "/json?n=9")) {
            String id = "bodies-" + path;
            byte[] request = ("{\"model\":\"rec-model\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"h\u00e9llo "
                    + path + "\"}]}").getBytes(StandardCharsets.UTF_8);
            HttpResponse<byte[]> r = HTTP.send(HttpRequest.newBuilder(at(recProxy, path)).header("X-Test-Id", id)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(request)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId(id) != null);
            RecordingEngine.Seen seen = engine.byId(id);
            assertThat(seen.requestSha()).as(path + " request").isEqualTo(sha(request));
            assertThat(sha(r.body())).as(path + " response").isEqualTo(seen.responseSha());
        }
    }

    @Test
    void aLargeUploadArrivesWhole() throws Exception {
        byte[] image = new byte[6 * 1024 * 1024 + 17];
        new Random(29).nextBytes(image);
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(at(recProxy, "/upload")).header("X-Test-Id", "upload")
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(image)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode answer = Json.MAPPER.readTree(r.body());
        assertThat(answer.path("bytes").asLong()).isEqualTo(image.length);
        assertThat(answer.path("sha256").asText()).isEqualTo(sha(image));
    }

    @Test
    void eachChunkIsForwardedAsItArrives() throws Exception {
        int n = 8;
        long gapMs = 150;
        HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(at(recProxy, "/sse?n=" + n + "&gap_ms=" + gapMs))
                .header("X-Test-Id", "timing").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        List<Long> arrived = new ArrayList<>();
        try (InputStream in = r.body()) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0) {
                if (c == '\n') {
                    String l = line.toString(StandardCharsets.UTF_8);
                    if (l.startsWith("data: ") && l.contains("\"delta\"")) {
                        arrived.add(System.nanoTime());
                    }
                    line.reset();
                } else {
                    line.write(c);
                }
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("timing") != null);
        List<Long> sent = engine.byId("timing").chunkSentAt();
        assertThat(arrived).hasSize(n);
        for (int i = 0; i < n; i++) {
            double lateMs = (arrived.get(i) - sent.get(i)) / 1e6;
            // A proxy that held chunks back would deliver the first ones a whole stream (over a second) late.
            assertThat(lateMs).as("chunk %d arrived %.1f ms after the engine sent it", i, lateMs).isLessThan(gapMs / 2.0);
        }
    }

    @Test
    void hopByHopHeadersAreDroppedForwardedOnesAddedAndBothSidesKeepTheirConnection() throws Exception {
        int[] sent = {0};
        try (Socket s = new Socket("127.0.0.1", recProxy)) {
            s.setSoTimeout(5000);
            // Requests one after another on one client connection, until one reaches the engine on a connection
            // an earlier one used (this engine's proxy has no connection rest: the connection is reused as soon
            // as the pool has it back). A proxy that opened a connection per request never gets there, and one that
            // closed the client's connection fails the next write or read on this socket.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                int i = sent[0]++;
                String req = "GET /headers HTTP/1.1\r\nHost: localhost:1234\r\nConnection: keep-alive, X-Hop\r\n"
                        + "X-Hop: secret\r\nTE: trailers\r\nProxy-Authorization: Basic Zm9vOmJhcg==\r\n"
                        + "User-Agent: client/1.0\r\nX-Keep: yes\r\nX-Test-Id: headers-" + i + "\r\n\r\n";
                s.getOutputStream().write(req.getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                Raw resp = Raw.read(s.getInputStream());
                assertThat(resp.status).isEqualTo(200);
                assertThat(resp.headers).doesNotContainKey("server");
                if (i == 0) {
                    return false;
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("headers-" + i) != null);
                RecordingEngine.Seen now = engine.byId("headers-" + i);
                List<RecordingEngine.Seen> all = engine.seen();
                java.util.Set<Integer> before = new java.util.HashSet<>();
                for (RecordingEngine.Seen seen : all.subList(0, all.indexOf(now))) {
                    if (seen.path().startsWith("/headers")) {
                        before.add(seen.remotePort());
                    }
                }
                return before.contains(now.remotePort());
            });
        }
        // Reuse is the rule, not a chance: at most one request may find the connection not yet back in the pool.
        assertThat(sent[0]).as("requests until one reused a connection").isLessThanOrEqualTo(3);
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("headers-0") != null);
        RecordingEngine.Seen first = engine.byId("headers-0");
        assertThat(first.headers()).containsEntry("x-keep", "yes").containsEntry("user-agent", "client/1.0")
                .containsEntry("x-forwarded-for", "127.0.0.1").containsEntry("x-forwarded-proto", "http")
                .containsEntry("x-forwarded-host", "localhost:1234")
                .doesNotContainKey("x-hop").doesNotContainKey("te").doesNotContainKey("proxy-authorization");
        assertThat(first.headers().get("host")).isEqualTo("127.0.0.1:" + engine.port());
    }

    @Test
    void anEngineThatIsDownGets502NamingItAndIsCounted() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(at(deadProxy, "/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        JsonNode body = Json.MAPPER.readTree(r.body());
        assertThat(body.path("upstream").asText()).isEqualTo("http://127.0.0.1:" + deadPort);
        assertThat(body.path("engine").asText()).isEqualTo("dead");
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("tailwatch_proxy_requests_total{tailwatch_engine_name=\"dead\","
                + "tailwatch_lane=\"default\",tailwatch_proxy_outcome=\"upstream_unreachable\"}") >= 1.0);
        assertThat(agent.get("/healthz").statusCode()).isEqualTo(200);
    }

    /** Headers, then nothing: the answer is not yet committed, so the client still gets the proxy's 502, not a torn 200. */
    @Test
    void anEngineThatBreaksOffAfterItsHeadersGets502NamingIt() throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(at(recProxy, "/broken")).header("X-Test-Id", "broken")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.headers().map() + " " + r.body()).isEqualTo(502);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        JsonNode body = Json.MAPPER.readTree(r.body());
        assertThat(body.path("upstream").asText()).isEqualTo("http://127.0.0.1:" + engine.port());
        assertThat(body.path("engine").asText()).isEqualTo("rec");
        assertThat(r.headers().firstValue("Cache-Control")).as("the engine's headers are not the error's").isEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("tailwatch_proxy_requests_total{tailwatch_engine_name=\"rec\","
                + "tailwatch_lane=\"default\",tailwatch_proxy_outcome=\"upstream_failed\"}") >= 1.0);
    }

    /** curl's way with a large upload (an image for mlx_vlm): the body waits for a 100 Continue, which must come. */
    @Test
    void aClientThatExpects100ContinueGetsItAndItsBodyArrivesWhole() throws Exception {
        byte[] body = new byte[200_000];
        new Random(31).nextBytes(body);
        try (Socket s = new Socket("127.0.0.1", recProxy)) {
            s.setSoTimeout(10_000);
            java.io.OutputStream o = s.getOutputStream();
            o.write(("POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: continue\r\nContent-Type: application/octet-stream\r\n"
                    + "Expect: 100-continue\r\nContent-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            assertThat(new String(in.readNBytes(25), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
            o.write(body);
            o.flush();
            assertThat(new String(in.readNBytes(12), StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("continue") != null);
        assertThat(engine.byId("continue").requestBytes()).isEqualTo(body.length);
        assertThat(engine.byId("continue").requestSha()).isEqualTo(sha(body));
    }

    /**
     * A small body of which only a part had come when the proxy began the request (the server begins a request
     * once some of its body is there) is streamed on, not cut: the engine reads all of it.
     */
    @Test
    void aBodyThatComesAfterItsHeadersStillArrivesWhole() throws Exception {
        byte[] body = "{\"model\":\"rec-model\",\"messages\":[{\"role\":\"user\",\"content\":\"late\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket("127.0.0.1", recProxy)) {
            s.setSoTimeout(10_000);
            java.io.OutputStream o = s.getOutputStream();
            o.write(("POST /json?n=3 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: late-body\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            o.write(body, 0, 10);
            o.flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> inFlight("rec") >= 1);
            o.write(body, 10, body.length - 10);
            o.flush();
            byte[] head = s.getInputStream().readNBytes(12);
            assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("late-body") != null);
        assertThat(engine.byId("late-body").requestBytes()).isEqualTo(body.length);
        assertThat(engine.byId("late-body").requestSha()).isEqualTo(sha(body));
    }

    @Test
    void aClientThatLeavesMidStreamStopsTheEngine() throws Exception {
        long before = sim.cancelled();
        String body = "{\"model\":\"" + sim.options().model() + "\",\"stream\":true,\"max_tokens\":1000,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"go on\"}]}";
        try (Socket s = new Socket("127.0.0.1", simProxy)) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.UTF_8));
            InputStream in = s.getInputStream();
            String seen = "";
            byte[] buf = new byte[4096];
            while (count(seen, "\"delta\"") < 5) {
                int n = in.read(buf);
                assertThat(n).isPositive();
                seen += new String(buf, 0, n, StandardCharsets.UTF_8);
            }
        }
        // 1000 tokens at 50/s would run 20 s: the engine must hear of the close within a few tokens.
        await().atMost(Duration.ofSeconds(3)).until(() -> sim.cancelled() > before);
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("tailwatch_proxy_requests_total{tailwatch_engine_name=\"sim\","
                + "tailwatch_lane=\"default\",tailwatch_proxy_outcome=\"client_disconnect\"}") >= 1.0);
    }

    /**
     * A client that asks for a long stream and reads none of it fills its socket and the proxy's buffers;
     * its stream then waits (back-pressure) without holding the proxy's thread: another client's stream
     * through the same proxy, and the same engine connection pool, runs to its end meanwhile.
     */
    @Test
    void aClientThatStopsReadingHoldsBackOnlyItsOwnStream() throws Exception {
        try (Socket stalled = new Socket()) {
            stalled.setReceiveBufferSize(4096);
            stalled.connect(new java.net.InetSocketAddress("127.0.0.1", recProxy), 2000);
            stalled.getOutputStream().write(("POST /sse?n=400000 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test-Id: stalled\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.US_ASCII));
            stalled.getOutputStream().flush();
            // The stalled stream has started (its engine thread writes into full buffers from here on).
            await().atMost(Duration.ofSeconds(10)).until(() -> metric("tailwatch_proxy_in_flight{tailwatch_engine_name=\"rec\"}") >= 1);
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(at(recProxy, "/sse?n=20"))
                        .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(count(r.body(), "\"delta\"")).isEqualTo(20);
                assertThat(r.body()).endsWith("data: [DONE]\n\n");
            }
            assertThat(engine.byId("stalled")).as("the stalled stream is still held, not finished").isNull();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("tailwatch_proxy_in_flight{tailwatch_engine_name=\"rec\"}") == 0);
    }

    @Test
    void tokensAndTimingsOfARealStreamAreMetered() throws Exception {
        String body = "{\"model\":\"" + sim.options().model() + "\",\"stream\":true,\"max_tokens\":12,"
                + "\"stream_options\":{\"include_usage\":true},\"messages\":[{\"role\":\"user\",\"content\":\"one two three\"}]}";
        double tokensBefore = orZero(metric("tailwatch_proxy_output_tokens_total{tailwatch_engine_name=\"sim\","
                + "tailwatch_lane=\"default\",tailwatch_token_source=\"usage\"}"));
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(at(simProxy, "/v1/chat/completions"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("data: [DONE]");
        await().atMost(Duration.ofSeconds(10)).until(() -> metric("tailwatch_proxy_output_tokens_total{tailwatch_engine_name=\"sim\","
                + "tailwatch_lane=\"default\",tailwatch_token_source=\"usage\"}") == tokensBefore + 12);
        String m = agent.get("/metrics").body();
        assertThat(m).containsPattern("gen_ai_server_time_to_first_token_seconds_count\\{gen_ai_response_model=\""
                + Pattern.quote(sim.options().model()) + "\",tailwatch_engine_name=\"sim\",tailwatch_lane=\"default\"\\} [1-9]");
        assertThat(m).contains("gen_ai_server_request_duration_seconds_bucket{");
        assertThat(m).contains("gen_ai_server_time_per_output_token_seconds_count{");
        assertThat(m).contains("tailwatch_proxy_token_usage_count{gen_ai_response_model=\"" + sim.options().model()
                + "\",gen_ai_token_type=\"input\"");
        // Energy per token: a figure exactly where the status knows one, and only on a host with power (never 0 W).
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            JsonNode energy = Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("energy_per_token");
            String now = agent.get("/metrics").body();
            assertThat(energy.path("window_seconds").asInt()).isEqualTo(60);
            assertThat(energy.path("reason").asText()).isNotEqualTo("waiting for a second host sample");
            assertThat(now.contains("tailwatch_engine_energy_per_output_token{")).isEqualTo(energy.path("known").asBoolean());
            assertThat(now.contains("hw_power_watts{") || !energy.path("known").asBoolean()).isTrue();
        });
        // Prompts and answers are never exported nor logged.
        assertThat(m).doesNotContain("one two three");
        assertThat(agent.stdout() + agent.stderr()).doesNotContain("one two three").doesNotContain(" one two");
    }

    @Test
    void lanesComeFromTheHeaderTheKeyOrThePathAndCountTheirGoodput() throws Exception {
        HTTP.send(HttpRequest.newBuilder(at(recProxy, "/sse?n=3")).header("X-Tailwatch-Lane", "interactive")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        HTTP.send(HttpRequest.newBuilder(at(recProxy, "/sse?n=3&gap_ms=5")).header("Authorization", "Bearer batch-key")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        HTTP.send(HttpRequest.newBuilder(at(recProxy, "/ndjson?n=3")).header("Authorization", "Bearer another-key")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        String lane = "tailwatch_proxy_requests_total{tailwatch_engine_name=\"rec\",tailwatch_lane=\"%s\",tailwatch_proxy_outcome=\"ok\"}";
        await().atMost(Duration.ofSeconds(10)).until(() -> metric(String.format(lane, "interactive")) >= 1
                && metric(String.format(lane, "batch")) >= 1 && metric(String.format(lane, "agents")) >= 1);
        // interactive meets its 5 s limits; batch cannot meet 1 ms with 10 ms of gaps.
        assertThat(metric("tailwatch_proxy_lane_good_total{tailwatch_engine_name=\"rec\",tailwatch_lane=\"interactive\"}"))
                .isGreaterThanOrEqualTo(1);
        assertThat(metric("tailwatch_proxy_lane_good_total{tailwatch_engine_name=\"rec\",tailwatch_lane=\"batch\"}")).isZero();
        assertThat(metric("tailwatch_proxy_lane_slo_target_ratio{tailwatch_engine_name=\"rec\",tailwatch_lane=\"interactive\"}"))
                .isEqualTo(0.9);
        JsonNode status = Json.MAPPER.readTree(agent.get("/api/v1/status").body());
        JsonNode rec = null;
        for (JsonNode p : status.path("proxies")) {
            if (p.path("engine").asText().equals("rec")) {
                rec = p;
            }
        }
        assertThat(rec).isNotNull();
        assertThat(rec.path("lanes").findValuesAsText("lane")).contains("interactive", "batch", "agents", "default");
        // The key is matched by its hash and kept nowhere.
        assertThat(agent.get("/metrics").body() + status + agent.stderr()).doesNotContain("batch-key")
                .doesNotContain("another-key");
    }

    /**
     * Four batch requests of 50 tokens (0.5 s each on the one slot) and, 100 ms later, one interactive request:
     * it waits for the engine behind them. The lane window shows it; diagnose names batch as what delays
     * interactive, citing both lanes' figures, and the status screen lists both lanes beside the windows.
     */
    @Test
    void batchTrafficOnASerialEngineIsWhatDiagnoseBlamesForTheInteractiveLanesWait() throws Exception {
        String body = "{\"model\":\"" + serial.options().model() + "\",\"stream\":true,\"max_tokens\":50,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> batch = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            batch.add(HTTP.sendAsync(HttpRequest.newBuilder(at(serialProxy, "/v1/chat/completions")).header("X-Tailwatch-Lane", "batch")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        // (the status's live count: the exported gauge is published about once a second, and all four are in
        // flight for only half a second)
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> inFlight("serial") == 4);
        HttpResponse<String> interactive = HTTP.send(HttpRequest.newBuilder(at(serialProxy, "/v1/chat/completions"))
                .header("X-Tailwatch-Lane", "interactive").POST(HttpRequest.BodyPublishers.ofString(body.replace("50", "5"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(interactive.statusCode()).isEqualTo(200);
        for (var f : batch) {
            assertThat(f.get(30, java.util.concurrent.TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        // the rule evaluator's signals carry both lanes once the window is published
        await().atMost(Duration.ofSeconds(10)).until(() -> io.tailwatch.tools.runbook.AgentStatus.signals(
                Json.MAPPER.readTree(agent.get("/api/v1/status").body())).lanes().stream()
                .filter(l -> l.engine().equals("serial") && l.requests() != null && l.requests() >= 1).count() == 2);
        JsonNode status = Json.MAPPER.readTree(agent.get("/api/v1/status").body());
        io.tailwatch.core.rules.Signals s = io.tailwatch.tools.runbook.AgentStatus.signals(status);
        io.tailwatch.core.rules.Signals.Lane in = s.lanes().stream().filter(l -> l.lane().equals("interactive")).findFirst().orElseThrow();
        // it waited at least for the batch request on the slot, 50 tokens at 100/s
        assertThat(in.queueWaitP95()).isGreaterThan(0.3);
        assertThat(in.ttftP95()).isGreaterThan(in.ttftSlo()).isGreaterThan(0.3);
        assertThat(in.ttftSlo()).isEqualTo(0.3);
        List<io.tailwatch.tools.runbook.Diagnosis.Cause> causes = io.tailwatch.tools.runbook.Diagnosis.rank(s, "serial",
                io.tailwatch.tools.runbook.AgentStatus.recentFailures(status));
        io.tailwatch.tools.runbook.Diagnosis.Cause c = causes.stream().filter(x -> x.id().equals("lanes:serial:interactive"))
                .findFirst().orElseThrow(() -> new AssertionError("no lane cause in " + causes));
        assertThat(c.title()).contains("interactive", "delayed by lane batch");
        assertThat(String.join("\n", c.figures())).contains("TTFT p95", "(SLO 300 ms)", "lane batch held");
        assertThat(causes.stream().filter(x -> x.id().equals("lanes:serial:batch"))).as("batch has no SLO and others hold nothing")
                .isEmpty();
        String screen = io.tailwatch.tools.runbook.StatusScreen.render("http://x", status,
                Json.MAPPER.readTree(agent.get("/api/v1/alerts").body()), s);
        assertThat(screen).contains("LANES  metering proxy, last 5m").containsPattern("serial/interactive +1 ")
                .containsPattern("serial/batch +4 ");
        // the status JSON carries each lane's window
        JsonNode window = null;
        for (JsonNode p : status.path("proxies")) {
            for (JsonNode l : p.path("lanes")) {
                if (p.path("engine").asText().equals("serial") && l.path("lane").asText().equals("batch")) {
                    window = l.path("window");
                }
            }
        }
        assertThat(window).isNotNull();
        assertThat(window.path("requests").asInt()).isEqualTo(4);
        assertThat(window.path("in_flight").asDouble()).isGreaterThan(0);
    }

    static double orZero(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** One HTTP/1.1 response read off a socket (Content-Length or chunked). */
    record Raw(int status, Map<String, String> headers, byte[] body) {
        static Raw read(InputStream in) throws IOException {
            String head = readLine(in);
            int status = Integer.parseInt(head.split(" ")[1]);
            Map<String, String> headers = new java.util.TreeMap<>();
            String l;
            while (!(l = readLine(in)).isEmpty()) {
                int c = l.indexOf(':');
                headers.put(l.substring(0, c).trim().toLowerCase(java.util.Locale.ROOT), l.substring(c + 1).trim());
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (headers.containsKey("content-length")) {
                body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                int size;
                while ((size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16)) > 0) {
                    body.write(in.readNBytes(size));
                    readLine(in);
                }
                readLine(in);
            }
            return new Raw(status, headers, body.toByteArray());
        }

        static String readLine(InputStream in) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                if (c != '\r') {
                    b.write(c);
                }
            }
            return b.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
