package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.LlamaServer;
import io.tailwatch.testing.RawStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ollama as it runs today, end to end: a real parent process ({@code tailwatch simulate --api ollama --runner
 * llama-server}) that starts the real llama.cpp server as its runner child the way {@code ollama serve} does
 * ({@code --model M --port <free loopback port> --host 127.0.0.1 ... -np 2}) and proxies /api/generate to it; the
 * agent, in its own process, finds the runner in the engine's process tree, reads the port from its command line and
 * its {@code /slots}, and its running figure, slot count and readiness verdict follow what the runner says.
 */
class OllamaRunnerSlotsIT {
    private static final Pattern SIMULATING = Pattern.compile("on http://127\\.0\\.0\\.1:(\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void theRunnersSlotsAreTheEnginesBusyFigureAndCapacity(@TempDir Path dir) throws Exception {
        Path llama = LlamaServer.binary();
        try (AgentProcess ollama = AgentProcess.start(Map.of(), "simulate", "--api", "ollama", "--listen", "127.0.0.1:0",
                "--runner", llama.toString(), "--runner-model", LlamaServer.model().toString(), "--parallel", "2",
                "--runner-threads", "1")) {
            try {
                run(ollama, dir);
            } finally {
                // The simulator stops its runner when terminated; a runner left by a killed parent is stopped here.
                List<ProcessHandle> children = ollama.process().descendants().toList();
                ollama.process().destroy();
                ollama.process().waitFor(30, java.util.concurrent.TimeUnit.SECONDS);
                children.forEach(ProcessHandle::destroyForcibly);
            }
        }
    }

    private static void run(AgentProcess ollama, Path dir) throws Exception {
        int port = awaitPort(ollama);
        // Ollama starts the runner on the first request for the model.
        HttpResponse<String> first = post(port, "/api/generate", "{\"model\":\"sim-llama3:8b\",\"prompt\":\"hi\","
                + "\"stream\":false,\"options\":{\"num_predict\":2}}");
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        JsonNode done = Json.MAPPER.readTree(first.body());
        assertThat(done.path("eval_count").asInt()).isEqualTo(2);
        assertThat(done.path("load_duration").asLong()).isPositive();

        ProcessHandle runner = ollama.process().children().findFirst().orElseThrow();
        List<String> args = List.of(runner.info().arguments().orElseThrow());
        int runnerPort = Integer.parseInt(args.get(args.indexOf("--port") + 1));
        assertThat(args).containsSubsequence("-np", "2");
        assertThat(runnerPort).isNotEqualTo(port);

        JsonNode ps = Json.MAPPER.readTree(get(port, "/api/ps").body());
        assertThat(ps.path("models").get(0).path("context_length").asInt()).isEqualTo(4096);

        Path cfg = Files.writeString(dir.resolve("tailwatch.yaml"), "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\n"
                + "engines:\n  - name: ollama\n    api: ollama\n    url: http://127.0.0.1:" + port + "\n    scenarios: []\n"
                + "    health:\n      interval: 1s\n    signals:\n      interval: 1s\n");
        try (AgentProcess agent = AgentProcess.start(Map.of("TAILWATCH_DATA_DIR", dir.resolve("data").toString()),
                "run", "--config", cfg.toString())) {
            agent.awaitListening();
            awaitVerdict(agent, runnerPort, 0, true);

            List<Socket> load = new ArrayList<>();
            try {
                load.add(startGenerate(port));
                awaitVerdict(agent, runnerPort, 1, true);
                load.add(startGenerate(port));
                awaitVerdict(agent, runnerPort, 2, false);
            } finally {
                for (Socket s : load) {
                    s.close();
                }
            }
            awaitVerdict(agent, runnerPort, 0, true);
            JsonNode signals = null;
            for (JsonNode e : Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("engines")) {
                signals = e.path("name").asText().equals("ollama") ? e.path("signals") : signals;
            }
            assertThat(signals).isNotNull();
            assertThat(signals.path("sources").get(0).path("reads").asText()).isEqualTo("GET /slots of each runner process");
            assertThat(signals.path("details").path("runners_found").asInt()).isEqualTo(1);
            assertThat(signals.path("details").path("runners").get(0).path("port").asInt()).isEqualTo(runnerPort);
            assertThat(signals.path("details").path("runners").get(0).path("pid").asLong()).isEqualTo(runner.pid());
        }
        // Terminated, the parent stops its runner (SIGTERM, then SIGKILL after 5 s) before it exits.
        ollama.process().destroy();
        await().atMost(Duration.ofSeconds(30)).until(() -> !runner.isAlive());
    }

    /**
     * Waits until the runner's own /slots shows {@code busy} of 2 processing and the agent agrees: its running series,
     * the readiness figures (2 slots from the runners) and verdict (ready with the free slots as headroom, or full).
     */
    private static void awaitVerdict(AgentProcess agent, int runnerPort, int busy, boolean ready) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            JsonNode slots = Json.MAPPER.readTree(get(runnerPort, "/slots").body());
            int processing = 0;
            for (JsonNode s : slots) {
                processing += s.path("is_processing").asBoolean() ? 1 : 0;
            }
            assertThat(slots.size()).isEqualTo(2);
            assertThat(processing).isEqualTo(busy);
            assertThat(agent.series("tailwatch_engine_requests{tailwatch_engine_name=\"ollama\",tailwatch_engine_request_state=\"running\",tailwatch_engine_requests_source=\"engine\"}")).isEqualTo(busy);
            assertThat(agent.series("tailwatch_engine_slots{tailwatch_engine_name=\"ollama\"}")).isEqualTo(2);
            HttpResponse<String> r = agent.get("/api/v1/engines/ollama/ready");
            JsonNode v = Json.MAPPER.readTree(r.body());
            assertThat(v.path("figures").path("slots").asInt()).as(r.body()).isEqualTo(2);
            assertThat(v.path("figures").path("requests_running").asInt(-1)).isEqualTo(busy);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(ready ? 200 : 503);
            if (ready) {
                assertThat(v.path("headroom").asInt()).isEqualTo(2 - busy);
            } else {
                assertThat(v.path("reasons").toString()).isEqualTo("[\"queue_full\"]");
            }
        });
    }

    private static int awaitPort(AgentProcess sim) {
        int[] port = {-1};
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            if (!sim.process().isAlive()) {
                throw new AssertionError("simulator exited:\n" + sim.stderr());
            }
            Matcher m = SIMULATING.matcher(sim.stdout());
            if (m.find()) {
                port[0] = Integer.parseInt(m.group(1));
                return true;
            }
            return false;
        });
        return port[0];
    }

    /** A long streamed /api/generate whose answer is never read; closing the socket makes the runner stop it. */
    private static Socket startGenerate(int port) throws Exception {
        return RawStream.startPost(port, "/api/generate",
                "{\"model\":\"sim-llama3:8b\",\"prompt\":\"load\",\"options\":{\"num_predict\":3000}}");
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(int port, String path, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(90))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
