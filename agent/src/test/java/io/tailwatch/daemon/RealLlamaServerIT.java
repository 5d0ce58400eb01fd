package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.PromptFactory;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.stats.Stats;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Chromium;
import io.tailwatch.testing.LlamaServer;
import io.tailwatch.testing.RawStream;
import io.tailwatch.testing.TcpTap;
import io.tailwatch.testing.TinyGguf;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tailwatch against a real llama.cpp llama-server (Debian's packages, the tiny model written by the
 * test setup, one thread, loopback). What the probe measures is compared with the server's own
 * {@code timings} and with an independent client on a raw socket timing the same requests; what the
 * daemon reads as engine signals is compared with the server's own /metrics and /slots under load; the
 * ladder runs on a serial and on a batching server; a key-protected server is told apart from a down
 * one; the status page in Chromium shows the engine as it reports itself.
 *
 * <p>Three servers serve every test (each start costs seconds): a serial one ({@code --parallel 1}), a
 * batching one ({@code --parallel 4}), both with /metrics and /slots, and a key-protected serial one.
 * Each is started on first use and left idle by the test that loaded it.
 */
class RealLlamaServerIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_TOKENS = 48;
    private static final int ROUNDS = 7;
    private static final String KEY = "k-real-engine";
    private static final String KEY_VAR = "TAILWATCH_TEST_LLAMA_KEY";
    private static final String SCENARIO = "{name: interactive, interval: 10s, prompt_tokens: 16, max_tokens: 8,"
            + " timeouts: {total: 8s, first_token: 8s}}";

    private static LlamaServer serial;
    private static LlamaServer batching;
    private static LlamaServer keyed;

    private static synchronized LlamaServer serial() throws IOException {
        if (serial == null) {
            serial = LlamaServer.start("--parallel", "1", "--metrics", "--slots");
        }
        return serial;
    }

    private static synchronized LlamaServer batching() throws IOException {
        if (batching == null) {
            batching = LlamaServer.start("--parallel", "4", "--metrics", "--slots");
        }
        return batching;
    }

    private static synchronized LlamaServer keyed() throws IOException {
        if (keyed == null) {
            keyed = LlamaServer.start("--parallel", "1", "--api-key", KEY);
        }
        return keyed;
    }

    @AfterAll
    static void stopServers() {
        for (LlamaServer s : new LlamaServer[] {serial, batching, keyed}) {
            if (s != null) {
                s.close();
            }
        }
    }

    /** Tagged "alone": it compares the probe's timings with a raw client's, which a class beside it could skew. */
    @Test
    @Tag("alone")
    void probeFiguresMatchTheServersTimingsAndAnIndependentClient() throws Exception {
        LlamaServer llama = idle(serial());
        try (EngineClient client = EngineClients.create("openai", llama.url(), null)) {
            ProbeRequest req = new ProbeRequest(null, 64, MAX_TOKENS, 0, Duration.ofSeconds(20), Duration.ofSeconds(60));
            client.probe(req); // warm-up: JIT, connection set-up
            RawStream.chat(llama.port(), PromptFactory.prompt(64), MAX_TOKENS, null);
            double[] decodeErr = new double[ROUNDS];
            double[] probeTtft = new double[ROUNDS];
            double[] rawTtft = new double[ROUNDS];
            double[] probeE2e = new double[ROUNDS];
            double[] rawE2e = new double[ROUNDS];
            for (int i = 0; i < ROUNDS; i++) {
                ProbeResult r = client.probe(req);
                assertThat(r.success()).as(r.errorType() + " " + r.errorMessage()).isTrue();
                RawStream.Timed raw = RawStream.chat(llama.port(), PromptFactory.prompt(64), MAX_TOKENS, null);
                // The model never ends early: every completion is exactly max_tokens long, and the
                // probe's count is the server's.
                assertThat(r.outputTokens()).isEqualTo((long) MAX_TOKENS);
                assertThat(raw.predictedN()).isEqualTo(MAX_TOKENS);
                assertThat(r.serverDecodeTokensPerSecond()).isNotNull().isPositive();
                decodeErr[i] = r.decodeTokensPerSecond() / r.serverDecodeTokensPerSecond() - 1;
                probeTtft[i] = r.ttftSeconds();
                rawTtft[i] = raw.ttftSeconds();
                probeE2e[i] = r.e2eSeconds();
                rawE2e[i] = raw.e2eSeconds();
            }
            // Tolerances for a loaded two-core machine (the benchmark's numbers, idle, are far tighter):
            // decode rate within 5 % of the server's own figure (median), TTFT and e2e within 100 ms +
            // 30 % of the raw-socket client's (medians).
            assertThat(Math.abs(Stats.median(decodeErr))).as("decode error " + Arrays.toString(decodeErr)).isLessThan(0.05);
            double rt = Stats.median(rawTtft);
            double re = Stats.median(rawE2e);
            assertThat(Stats.median(probeTtft)).as("ttft probe " + Arrays.toString(probeTtft) + " raw "
                    + Arrays.toString(rawTtft)).isBetween(rt * 0.7 - 0.1, rt * 1.3 + 0.1);
            assertThat(Stats.median(probeE2e)).as("e2e probe " + Arrays.toString(probeE2e) + " raw "
                    + Arrays.toString(rawE2e)).isBetween(re * 0.7 - 0.1, re * 1.3 + 0.1);
        }
    }

    /**
     * A key-protected server is an engine that needs a key: without one the probe fails with HTTP 401
     * and says a key is needed (not that no model is loaded); with it the probe succeeds.
     */
    @Test
    void aKeyProtectedServerNeedsTheKeyAndIsProbedWithIt() throws Exception {
        LlamaServer llama = keyed();
        assertThat(llama.get("/v1/models").statusCode()).isEqualTo(401);
        ProbeRequest req = new ProbeRequest(null, 16, 16, 0, Duration.ofSeconds(20), Duration.ofSeconds(60));
        try (EngineClient without = EngineClients.create("openai", llama.url(), null)) {
            ProbeResult r = without.probe(req);
            assertThat(r.success()).isFalse();
            assertThat(r.errorType()).isEqualTo("http_401");
            assertThat(r.errorMessage()).contains("needs an API key").doesNotContain("no model");
        }
        try (EngineClient with = EngineClients.create("openai", llama.url(), KEY)) {
            ProbeResult r = with.probe(req);
            assertThat(r.success()).as(r.errorType() + " " + r.errorMessage()).isTrue();
            assertThat(r.outputTokens()).isEqualTo(16L);
        }
    }

    /**
     * A server that ends every stream at once, without a content token (its end token made certain by a
     * logit bias): the probe is a failure of its own class, and the server's decode rate of 0 is left out.
     */
    @Test
    void aServerThatAnswersNothingFailsTheProbeAsNoOutput() throws Exception {
        try (LlamaServer llama = LlamaServer.start("--parallel", "1", "--logit-bias", TinyGguf.EOS + "+100000");
             EngineClient client = EngineClients.create("openai", llama.url(), null)) {
            ProbeResult r = client.probe(new ProbeRequest(null, 16, 16, 0, Duration.ofSeconds(20), Duration.ofSeconds(60)));
            assertThat(r.success()).isFalse();
            assertThat(r.errorType()).as(r.errorMessage()).isEqualTo("no_output");
            assertThat(r.ttftSeconds()).isNull();
            assertThat(r.serverDecodeTokensPerSecond()).isNull();
        }
    }

    /** detect finds both servers as llama.cpp; the key-protected one as needing a key, with the line to fill in. */
    @Test
    void detectFindsTheServersAndTheOneThatNeedsAKey() throws Exception {
        int open = serial().port();
        int locked = keyed().port();
        AgentProcess.Result r = AgentProcess.run(Map.of(), "detect", "--only", "--ports", open + "," + locked, "--json");
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        JsonNode root = JSON.readTree(r.stdout());
        JsonNode found = root.get("found");
        assertThat(found).hasSize(2);
        for (JsonNode f : found) {
            assertThat(f.get("kind").asText()).isEqualTo("llamacpp");
            assertThat(f.get("needs_api_key").asBoolean()).as(f.toString()).isEqualTo(f.get("port").asInt() == locked);
        }
        assertThat(found.findValuesAsText("port")).containsExactlyInAnyOrder(String.valueOf(open), String.valueOf(locked));
        String name = found.get(found.get(0).get("port").asInt() == locked ? 0 : 1).get("name").asText();
        String var = name.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]+", "_") + "_API_KEY";
        assertThat(root.get("engines_block").asText()).containsPattern("api_key: \"?\\$\\{" + var + "}\"?\n");
    }

    /** engines: auto watches the open server and the key-protected one (as needs_key, not down). */
    @Test
    void enginesAutoFindsAndWatchesTheServers(@TempDir Path dir) throws Exception {
        LlamaServer llama = serial();
        LlamaServer locked = keyed();
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines: auto\n"
                + "discovery:\n  well_known_ports: false\n  ports: [" + llama.port() + ", " + locked.port() + "]\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                JsonNode engines = JSON.readTree(agent.get("/api/v1/status").body()).path("engines");
                assertThat(engine(engines, llama).path("state").asText()).isEqualTo("up");
                assertThat(engine(engines, locked).path("state").asText()).isEqualTo("needs_key");
            });
            // Its memory, found by its listening port (it runs under the root's loader, not as "llama-server").
            String name = engine(JSON.readTree(agent.get("/api/v1/status").body()).path("engines"), llama).path("name").asText();
            String series = "process_memory_usage_bytes{tailwatch_engine_name=\"" + name + "\"}";
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
                    agent.get("/metrics").body().contains(series));
            double rss = agent.get("/metrics").body().lines().filter(l -> l.startsWith(series + " "))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElseThrow();
            long own = rss(llama);
            assertThat(rss).as("llama-server's resident size, %d now", own).isBetween(own / 2.0, own * 2.0);
        }
    }

    /**
     * The release launcher's daemon watching the serial server, and the key-protected one twice
     * (without the key and with it): the status page in Chromium shows the engine as it reports itself
     * (version from /props, the model by its file name) and a probe window; the engine without the key
     * is needs_key, never EngineDown, while the one with the key is probed; then the serial server's
     * queue under load is read as the server reports it.
     */
    @Test
    void serialServerOnThePageAndItsQueueAsTheServerReportsIt(@TempDir Path dir) throws Exception {
        LlamaServer llama = idle(serial());
        LlamaServer locked = keyed();
        String scenario = "    scenarios: [" + SCENARIO + "]\n";
        String extra = "  - name: locked\n    api: openai\n    url: " + locked.url() + "\n    health: {interval: 1s}\n" + scenario
                + "  - name: keyed\n    api: openai\n    url: " + locked.url() + "\n    api_key: ${" + KEY_VAR + "}\n" + scenario;
        // Probes every 5 s that give up after 3 s without a first token: behind the load they time out.
        String quick = "{name: interactive, interval: 5s, prompt_tokens: 16, max_tokens: 8, timeouts: {total: 4s, first_token: 3s}}";
        try (AgentProcess agent = daemon(dir, llama, quick, extra, Map.of(KEY_VAR, KEY))) {
            streamsBackToBackThroughTheProxy(agent);
            statusPageShowsTheEngine(agent, llama);
            // What the engine says about itself, in the status: the /props build, GGUF; the up line without a blank.
            JsonNode self = named(JSON.readTree(agent.get("/api/v1/status").body()).path("engines"), "llama");
            assertThat(self.path("version").asText()).isEqualTo(buildInfo(llama));
            assertThat(self.path("models").path(0).path("format").asText()).isEqualTo("gguf");
            assertThat(agent.stdout() + agent.stderr()).containsPattern("engine llama is up \\(\\S+ "
                    + Pattern.quote(buildInfo(llama)) + "\\)");
            JsonNode engines = JSON.readTree(agent.get("/api/v1/status").body()).path("engines");
            JsonNode without = named(engines, "locked");
            assertThat(without.path("state").asText()).isEqualTo("needs_key");
            assertThat(without.path("severity").asText()).isEqualTo("warning");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(named(
                    JSON.readTree(agent.get("/api/v1/status").body()).path("engines"), "keyed")
                    .path("scenarios").path(0).path("last").path("success").asBoolean()).isTrue());
            String metrics = agent.get("/metrics").body();
            assertThat(metrics).contains("tailwatch_engine_key_refused{tailwatch_engine_name=\"locked\"} 1")
                    .contains("tailwatch_engine_up{tailwatch_engine_name=\"keyed\"} 1")
                    .doesNotContain("tailwatch_engine_up{tailwatch_engine_name=\"locked\"}");
            assertThat(agent.get("/api/v1/alerts").body()).doesNotContain("EngineDown");

            signalsUnderLoad(agent, llama, 1, 4, () -> {
                // The daemon's probes time out in the queue; diagnose ranks queueing first and cites the queue.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> List.of(
                        "first_token_timeout", "total_timeout").contains(named(JSON.readTree(agent.get("/api/v1/status").body())
                        .path("engines"), "llama").path("scenarios").path(0).path("last").path("error_type").asText()));
                // diagnose reads the signals of the rules' last evaluation, which may predate the first failed probe:
                // it is asked again until an evaluation has seen it (the load lasts well beyond this wait).
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                    AgentProcess.Result d = AgentProcess.run(Map.of(), "diagnose", "--url", agent.url(""), "--engine", "llama");
                    assertThat(d.exitCode()).as(d.stderr()).isZero();
                    assertThat(d.stdout().lines().findFirst().orElse("")).as(d.stdout()).contains("Requests wait in the engine's queue");
                    assertThat(d.stdout()).containsPattern("llama queue: [2-9] waiting, 1 running");
                });
            });
            assertThat(agent.get("/api/v1/alerts").body()).doesNotContain("EngineDown");
        }
    }

    /**
     * The metering proxy in front of the real server, with a TCP tap between the two that keeps every byte
     * the proxy sent the server and every byte the server answered: a streamed and a whole chat request and
     * their answers pass byte for byte; with three long requests on the serial server the proxy's in-flight
     * count is the server's own running plus waiting; and when their clients leave, one mid-stream and two
     * still queued, the server's work for them ends at once (three times 3,500 tokens would take a minute).
     */
    @Test
    void theProxyPassesTheServersBytesCountsItsQueueAndEndsWorkForClientsThatLeave(@TempDir Path dir) throws Exception {
        LlamaServer llama = idle(serial());
        try (TcpTap tap = TcpTap.start(llama.port())) {
            Path cfg = dir.resolve("tailwatch.yaml");
            Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 5s\nengines:\n"
                    + "  - name: llama\n    api: openai\n    url: http://127.0.0.1:" + tap.port() + "\n    scenarios: []\n"
                    + "    health: {interval: 1h}\n    signals: {source: none}\n    proxy: {listen: 127.0.0.1:0}\n");
            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", cfg.toString())) {
                agent.awaitListening();
                int proxy = proxyPort(agent);
                java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                        .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
                String streamed = null;
                for (boolean stream : new boolean[] {true, false}) {
                    String id = "tap-" + stream;
                    byte[] request = ("{\"model\":\"tiny\",\"stream\":" + stream + ",\"max_tokens\":12,\"messages\":"
                            + "[{\"role\":\"user\",\"content\":\"caf\u00e9 " + id + "\"}]}").getBytes(StandardCharsets.UTF_8);
                    java.net.http.HttpResponse<byte[]> r = http.send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + proxy + "/v1/chat/completions")).header("X-Test-Id", id)
                            .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(request))
                            .build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
                    assertThat(r.statusCode()).as(id).isEqualTo(200);
                    TcpTap.Conversation c = tap.carrying(id);
                    assertThat(c).as(id + " reached the server").isNotNull();
                    List<TcpTap.Message> sent = TcpTap.messages(c.toTarget(), true);
                    int i = 0;
                    while (i < sent.size() && !sent.get(i).head().contains(id)) {
                        i++;
                    }
                    assertThat(sent.get(i).body()).as(id + " request").isEqualTo(request);
                    List<TcpTap.Message> answered = TcpTap.messages(c.fromTarget(), false);
                    assertThat(answered.size()).as(id + " answers on its connection").isGreaterThan(i);
                    assertThat(r.body()).as(id + " answer").isEqualTo(answered.get(i).body());
                    assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains(stream ? "data: " : "\"choices\"");
                    if (stream) {
                        streamed = new String(r.body(), StandardCharsets.UTF_8);
                    }
                }
                engineFiguresOfTheStream(agent, streamed);

                double decodes = serverGauge(llama, "n_decode_total");
                List<Socket> load = new ArrayList<>();
                try {
                    for (int i = 0; i < 3; i++) {
                        load.add(RawStream.startCompletion(proxy, 3_500));
                    }
                    await().atMost(Duration.ofSeconds(30)).until(() -> serverGauge(llama, "requests_processing") == 1
                            && serverGauge(llama, "requests_deferred") == 2);
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                            agent.series("tailwatch_proxy_in_flight{tailwatch_engine_name=\"llama\"}"))
                            .isEqualTo(serverGauge(llama, "requests_processing") + serverGauge(llama, "requests_deferred"))
                            .isEqualTo(3.0));
                } finally {
                    for (Socket s : load) {
                        s.close();
                    }
                }
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() ->
                        serverGauge(llama, "requests_processing") == 0 && serverGauge(llama, "requests_deferred") == 0);
                assertThat(serverGauge(llama, "n_decode_total") - decodes)
                        .as("decodes for three requests of 3,500 tokens whose clients left").isLessThan(3_500);
                await().atMost(Duration.ofSeconds(10)).until(() -> agent.series("tailwatch_proxy_requests_total{"
                        + "tailwatch_engine_name=\"llama\",tailwatch_lane=\"default\",tailwatch_proxy_outcome=\"client_disconnect\"}") >= 1);
                assertThat(agent.series("tailwatch_proxy_in_flight{tailwatch_engine_name=\"llama\"}")).isZero();
            }
        }
    }

    @Test
    void batchingServerRunsEveryRequestAtOnce(@TempDir Path dir) throws Exception {
        LlamaServer llama = idle(batching());
        try (AgentProcess agent = daemon(dir, llama, SCENARIO, "", Map.of())) {
            completionThroughTheProxy(agent);
            signalsUnderLoad(agent, llama, 4, 4, () -> { });
        }
    }

    /**
     * The ladder on a serial and on a batching server: each records the server's slot count in the CSV,
     * the summary and the gate report. At concurrency 2 the serial server generates for one request at a
     * time: the second waits for the whole first one, so the step's e2e p95 is well over the single
     * request's (about twice), and no two requests' generations (first token to end) overlap. The batching
     * server generates for both at once: their generations overlap. (With one thread a batch of two costs
     * nearly twice one, so the p95 ratio alone does not tell the two apart; the overlap does.)
     */
    @Test
    void theLadderRecordsTheSlotsAndSeesASerialAndABatchingServer(@TempDir Path dir) throws Exception {
        List<String> one = ladder(dir.resolve("serial"), idle(serial()), 1);
        List<String> four = ladder(dir.resolve("batching"), idle(batching()), 4);
        JsonNode s1 = JSON.readTree(dir.resolve("serial/out/summary.json").toFile());
        JsonNode s4 = JSON.readTree(dir.resolve("batching/out/summary.json").toFile());
        double serialRatio = s1.at("/levels/1/p95_seconds").asDouble() / s1.at("/levels/0/p50_seconds").asDouble();
        double batchingRatio = s4.at("/levels/1/p95_seconds").asDouble() / s4.at("/levels/0/p50_seconds").asDouble();
        double serialOverlap = overlap(one);
        double batchingOverlap = overlap(four);
        // Measured against each server's own generation time (first token to end), which depends on the machine.
        double serialSpan = medianGeneration(one);
        double batchingSpan = medianGeneration(four);
        // On a serial server one of two requests sent together waits for the other's whole generation before its
        // first token, so the spread of first-token times at concurrency 2 exceeds a generation.
        double serialWait = ttftSpread(one);
        String figures = "concurrency-2 p95 over concurrency-1 p50: serial " + serialRatio + ", batching " + batchingRatio
                + "; longest overlap of two generations: serial " + serialOverlap + " s of " + serialSpan
                + " s, batching " + batchingOverlap + " s of " + batchingSpan + " s; serial first-token spread "
                + serialWait + " s";
        assertThat(serialRatio).as(figures).isGreaterThan(1.0);
        assertThat(serialWait).as(figures).isGreaterThan(0.5 * serialSpan);
        assertThat(serialOverlap).as(figures).isLessThan(0.25 * serialSpan);
        assertThat(batchingOverlap).as(figures).isGreaterThan(0.5 * batchingSpan);
    }

    /**
     * Runs a two-step ladder (1, 2) against {@code llama} and checks the slot count and facts it records;
     * returns the concurrency-2 rows of requests.csv.
     */
    private static List<String> ladder(Path dir, LlamaServer llama, int slots) throws Exception {
        Files.createDirectories(dir);
        Path out = dir.resolve("out");
        AgentProcess.Result r = AgentProcess.run(Map.of("TAILWATCH_DATA_DIR", dir.resolve("data").toString()), "ladder",
                "--url", llama.url().toString(), "--api", "openai", "--levels", "1,2", "--requests-per-level", "4",
                "--max-tokens", "32", "--prompt-tokens", "16", "--gate", "daily=100,budget=1h", "--out", out.toString(),
                "--no-history", "--force", "--quiet");
        assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isZero();
        JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
        JsonNode meta = summary.get("metadata");
        assertThat(meta.get("engine_parallelism").asInt()).isEqualTo(slots);
        assertThat(meta.get("engine_parallelism_source").asText()).isEqualTo("llama.cpp /props total_slots");
        assertThat(meta.get("engine_version").asText()).isEqualTo(buildInfo(llama));
        assertThat(meta.get("model_format").asText()).isEqualTo("gguf");
        List<String> csv = Files.readAllLines(out.resolve("requests.csv"));
        assertThat(csv.get(0)).startsWith("phase,concurrency,seq,started_at,success,error_type,e2e_seconds,ttft_seconds,")
                .endsWith(",engine_parallelism");
        assertThat(csv.subList(1, csv.size())).allSatisfy(l -> assertThat(l).endsWith("," + slots))
                .filteredOn(l -> l.startsWith("measure,")).hasSize(8);
        assertThat(Files.readString(out.resolve("report.md"))).contains("Gate (100 jobs a day", "Engine parallelism: " + slots
                + (slots == 1 ? " request" : " requests") + " at once (llama.cpp /props total_slots).");
        assertThat(summary.get("levels")).hasSize(2);
        // The engine's memory, found by the URL's port as from a config.
        long own = rss(llama);
        for (String when : new String[] {"host_before", "host_after"}) {
            assertThat(summary.at("/levels/0/" + when + "/engine_footprint_bytes").asDouble()).as(when)
                    .isBetween(own / 2.0, own * 2.0);
        }
        return csv.stream().filter(l -> l.startsWith("measure,2,")).toList();
    }

    /** The median time these requests.csv rows were generating (first token to end), in seconds. */
    private static double medianGeneration(List<String> rows) {
        double[] spans = rows.stream().map(r -> r.split(",")).mapToDouble(c -> Double.parseDouble(c[6]) - Double.parseDouble(c[7]))
                .toArray();
        assertThat(spans).isNotEmpty();
        return io.tailwatch.core.stats.Stats.median(spans);
    }

    /** The longest first-token time of these requests.csv rows minus the shortest, in seconds. */
    private static double ttftSpread(List<String> rows) {
        double[] ttft = rows.stream().mapToDouble(r -> Double.parseDouble(r.split(",")[7])).toArray();
        assertThat(ttft).isNotEmpty();
        return java.util.Arrays.stream(ttft).max().orElseThrow() - java.util.Arrays.stream(ttft).min().orElseThrow();
    }

    /** The longest time two of these requests.csv rows were generating at once (first token to end), in seconds. */
    private static double overlap(List<String> rows) {
        List<double[]> spans = new ArrayList<>();
        for (String row : rows) {
            String[] c = row.split(",");
            assertThat(c[4]).as(row).isEqualTo("true");
            double start = java.time.Instant.parse(c[3]).toEpochMilli() / 1000.0;
            spans.add(new double[] {start + Double.parseDouble(c[7]), start + Double.parseDouble(c[6])});
        }
        double longest = -1;
        for (int a = 0; a < spans.size(); a++) {
            for (int b = a + 1; b < spans.size(); b++) {
                longest = Math.max(longest, Math.min(spans.get(a)[1], spans.get(b)[1]) - Math.max(spans.get(a)[0], spans.get(b)[0]));
            }
        }
        return longest;
    }

    /** The release launcher's daemon watching {@code llama} as engine "llama", plus {@code extraEngines}; a probe succeeded. */
    private static AgentProcess daemon(Path dir, LlamaServer llama, String scenario, String extraEngines, Map<String, String> env)
            throws Exception {
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 5s\nengines:\n"
                + "  - name: llama\n    api: openai\n    url: " + llama.url() + "\n    signals: {interval: 1s}\n"
                + "    scenarios: [" + scenario + "]\n    proxy: {listen: 127.0.0.1:0}\n" + extraEngines);
        AgentProcess agent = AgentProcess.startShipped(dir, env, "run", "--config", cfg.toString());
        try {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(agent.get("/metrics").body())
                    .contains("tailwatch_probe_success{"));
            return agent;
        } catch (RuntimeException | Error e) {
            agent.close();
            throw e;
        }
    }

    /**
     * The page in headless Chromium: the engine's card up, with the version llama-server's /props
     * reports and the model by its file name (not its path), and a probe window for it.
     */
    private static void statusPageShowsTheEngine(AgentProcess agent, LlamaServer llama) throws Exception {
        String version = buildInfo(llama);
        String file = LlamaServer.model().getFileName().toString();
        String folder = LlamaServer.model().getParent().toString();
        try (Chromium browser = Chromium.start()) {
            browser.navigate(agent.url("/ui/"));
            String card = "#engines .engine[data-engine=llama]";
            String window = "#windows .window[data-engine=llama][data-model]";
            await().atMost(Duration.ofSeconds(30)).until(() -> browser.eval("!!document.querySelector('" + card + " .pill.ok')"
                    + " && !!document.querySelector('" + window + "')").asBoolean());
            String engine = browser.eval("document.querySelector('" + card + "').innerText").asText();
            assertThat(engine).contains("llama", version, file).doesNotContain(folder);
            String win = browser.eval("document.querySelector('" + window + " h3').innerText").asText();
            assertThat(win).contains(file, "interactive").doesNotContain(folder);
            assertThat(browser.eval("Number(document.querySelector('" + window + " [data-figure=samples]')"
                    + ".getAttribute('data-value'))").asInt()).isPositive();
            assertThat(browser.eval("document.querySelector('#engines .engine[data-engine=locked] .pill').textContent").asText())
                    .isEqualTo("needs API key");
            assertThat(browser.problems()).as("script errors or policy violations in the page").isEmpty();
        }
    }

    /**
     * {@code clients} long streamed completions at once against a server with {@code parallel} slots;
     * the daemon must publish the running and waiting counts the server's own /metrics shows. The
     * requests are cut when done (the server stops them) and the server is left idle. On a serial server each
     * asks for 3,500 tokens (its whole context holds 4,096): the check under load waits for a probe to time out
     * in the queue and then for the rules to evaluate it, and the queue must still be there by then, however
     * fast the server generates. A batching server's slot holds a quarter of the context: 1,500 is its most.
     */
    private static void signalsUnderLoad(AgentProcess agent, LlamaServer llama, int parallel, int clients, Check underLoad)
            throws Exception {
        int tokens = parallel == 1 ? 3_500 : 1_500;
        int running = Math.min(parallel, clients);
        int waiting = clients - running;
        List<Socket> load = new ArrayList<>();
        try {
            for (int i = 0; i < clients; i++) {
                load.add(RawStream.startCompletion(llama.port(), tokens));
            }
            // The server's own count first, then the daemon's, while the load still runs.
            await().atMost(Duration.ofSeconds(30)).until(() -> serverGauge(llama, "requests_processing") == running
                    && serverGauge(llama, "requests_deferred") >= waiting);
            // The daemon's own probe may queue behind the load too: at least the load waits.
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                String body = agent.get("/metrics").body();
                assertThat(daemonGauge(body, "running")).isEqualTo(running);
                assertThat(daemonGauge(body, "waiting")).isGreaterThanOrEqualTo(waiting);
            });
            assertThat(serverGauge(llama, "requests_processing")).isEqualTo(running);
            JsonNode slots = JSON.readTree(llama.get("/slots").body());
            long busy = 0;
            for (JsonNode s : slots) {
                busy += s.get("is_processing").asBoolean() ? 1 : 0;
            }
            assertThat(busy).isEqualTo(running);
            underLoad.run();
        } finally {
            for (Socket s : load) {
                s.close();
            }
        }
        idle(llama);
    }

    /** A check that may throw. */
    private interface Check {
        void run() throws Exception;
    }

    /** Waits (at most 60 s) until the server runs and queues nothing; returns it. */
    private static LlamaServer idle(LlamaServer llama) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                serverGauge(llama, "requests_processing") == 0 && serverGauge(llama, "requests_deferred") == 0);
        return llama;
    }

    /** The server process's resident size from /proc (the wrapper execs the loader, so it is the same process). */
    private static long rss(LlamaServer llama) throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc", String.valueOf(llama.pid()), "status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS for llama-server " + llama.pid());
    }

    private static String buildInfo(LlamaServer llama) throws Exception {
        String v = JSON.readTree(llama.get("/props").body()).path("build_info").asText();
        assertThat(v).as("llama-server's /props build_info").startsWith("b");
        return v;
    }

    private static JsonNode engine(JsonNode engines, LlamaServer llama) {
        for (JsonNode e : engines) {
            if (e.path("url").asText().contains("127.0.0.1:" + llama.port())) {
                return e;
            }
        }
        throw new AssertionError("no engine at port " + llama.port() + " in " + engines);
    }

    private static JsonNode named(JsonNode engines, String name) {
        for (JsonNode e : engines) {
            if (e.path("name").asText().equals(name)) {
                return e;
            }
        }
        throw new AssertionError("no engine " + name + " in " + engines);
    }

    /**
     * The server's own decode rate in the stream's last event ({@code timings.predicted_per_second}) becomes
     * one observation of the proxy's engine time per output token, 1 / that rate, read here from the bytes the
     * client got. llama.cpp reports prompt processing, not a time to first token: the engine's TTFT series
     * stays absent, as documented.
     */
    private static void engineFiguresOfTheStream(AgentProcess agent, String streamed) throws Exception {
        JsonNode timings = null;
        for (String line : streamed.split("\n")) {
            if (line.startsWith("data: {")) {
                JsonNode t = JSON.readTree(line.substring(6)).get("timings");
                timings = t != null ? t : timings;
            }
        }
        assertThat(timings).as(streamed).isNotNull();
        double tpot = 1 / timings.path("predicted_per_second").asDouble();
        assertThat(tpot).isPositive();
        String name = "tailwatch_proxy_engine_time_per_output_token_seconds";
        String of = "\\{[^}]*tailwatch_engine_name=\"llama\"[^}]*\\} ";
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String body = agent.get("/metrics").body();
            assertThat(body).containsPattern(name + "_count" + of + "1(\\.0)?\n");
            Matcher sum = Pattern.compile(name + "_sum" + of + "(\\S+)\n").matcher(body);
            assertThat(sum.find()).as(name).isTrue();
            assertThat(Double.parseDouble(sum.group(1))).as(name).isCloseTo(tpot,
                    org.assertj.core.data.Percentage.withPercentage(1e-9));
            assertThat(body).doesNotContain("tailwatch_proxy_engine_time_to_first_token_seconds_count{");
        });
    }

    /**
     * llama.cpp's own /completion stream through the metering proxy (top-level content, no choices, no [DONE]):
     * the proxy counts the server's own tokens_predicted as output tokens and times the first token.
     */
    private static void completionThroughTheProxy(AgentProcess agent) throws Exception {
        String listen = JSON.readTree(agent.get("/api/v1/status").body()).path("proxies").get(0).path("listen").asText();
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                .newBuilder(java.net.URI.create("http://" + listen + "/completion"))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"prompt\":\"Hello\",\"n_predict\":6,\"stream\":true}")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher last = Pattern.compile("\"stop\":true.*\"tokens_predicted\":(\\d+)").matcher(r.body());
        assertThat(last.find()).as(r.body()).isTrue();
        long predicted = Long.parseLong(last.group(1));
        assertThat(predicted).isPositive();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String body = agent.get("/metrics").body();
            assertThat(body).containsPattern(Pattern.quote("tailwatch_proxy_output_tokens_total{tailwatch_engine_name=\"llama\","
                    + "tailwatch_lane=\"default\",tailwatch_token_source=\"engine\"} " + predicted) + "(\\.0)?\n");
            assertThat(body).containsPattern("gen_ai_server_time_to_first_token_seconds_count\\{[^}]*tailwatch_engine_name=\"llama\"[^}]*\\} 1(\\.0)?\n");
        });
    }

    /**
     * llama-server closes its connection after each streamed answer without a Connection: close; streams sent
     * back to back through the proxy must each get the whole answer, never a 502 from a reused closed connection.
     */
    private static void streamsBackToBackThroughTheProxy(AgentProcess agent) throws Exception {
        int port = proxyPort(agent);
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        String body = "{\"model\":\"tiny\",\"stream\":true,\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}";
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("Content-Type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(body))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            statuses.add(r.statusCode());
            assertThat(r.body()).as("stream %d", i).endsWith("data: [DONE]\n\n");
        }
        assertThat(statuses).containsOnly(200);
    }

    /** The port of the agent's one running proxy, once it listens. */
    private static int proxyPort(AgentProcess agent) {
        int[] port = {-1};
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (JsonNode p : JSON.readTree(agent.get("/api/v1/status").body()).path("proxies")) {
                if (p.path("state").asText().equals("running")) {
                    String listen = p.path("listen").asText();
                    port[0] = Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
                }
            }
            return port[0] > 0;
        });
        return port[0];
    }

    /** A llamacpp:NAME gauge from the server's own /metrics. */
    private static double serverGauge(LlamaServer llama, String name) throws Exception {
        Matcher m = Pattern.compile("^llamacpp:" + name + " (\\S+)$", Pattern.MULTILINE).matcher(llama.get("/metrics").body());
        if (!m.find()) {
            throw new AssertionError("no llamacpp:" + name + " in the server's /metrics");
        }
        return Double.parseDouble(m.group(1));
    }

    private static double daemonGauge(String exposition, String state) {
        Matcher m = Pattern.compile("^tailwatch_engine_requests\\{tailwatch_engine_name=\"llama\",tailwatch_engine_request_state=\""
                + state + "\",tailwatch_engine_requests_source=\"engine\"} (\\S+)$", Pattern.MULTILINE).matcher(exposition);
        if (!m.find()) {
            throw new AssertionError("no " + state + " requests for llama in:\n" + exposition);
        }
        return Double.parseDouble(m.group(1));
    }
}
