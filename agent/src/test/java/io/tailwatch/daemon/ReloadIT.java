package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGHUP on the real jar: a scraper opening a new connection for every scrape while 30 reloads of the
 * unchanged config and one of a changed rule go by is answered every time; an EngineDown that fired
 * before the reloads is still firing after them (the same instance), and the webhook gets `resolved`
 * when the engine comes back.
 */
class ReloadIT {
    private static final int RELOADS = 30;

    @TempDir
    Path dir;

    private static int scrape(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(12);
            in.transferTo(OutputStream.nullOutputStream());
            String line = new String(head, StandardCharsets.US_ASCII);
            return line.startsWith("HTTP/1.1 ") ? Integer.parseInt(line.substring(9, 12)) : -1;
        }
    }

    private static JsonNode engineDown(AgentProcess agent) throws Exception {
        for (JsonNode a : Json.MAPPER.readTree(agent.get("/api/v1/alerts").body()).path("alerts")) {
            if (a.path("name").asText().equals("EngineDown")) {
                return a;
            }
        }
        return null;
    }

    /** The reloads applied so far, from /api/v1/status (a new connection per call: the scraper's kind). */
    private static int reloads(AgentProcess agent) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        String body = client.send(HttpRequest.newBuilder(URI.create(agent.url("/api/v1/status"))).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        return Json.MAPPER.readTree(body).path("reload").path("reloads").asInt(-1);
    }

    @Test
    void scrapesAreAllAnsweredDuringReloadsAndAFiringAlertStaysFiringAndResolvesLater() throws Exception {
        List<JsonNode> hooks = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", ex -> {
            hooks.add(Json.MAPPER.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        receiver.start();
        SimulatorOptions o = SimulatorOptions.defaults("openai");
        EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, o);
        int enginePort = sim.port();
        Path config = dir.resolve("tailwatch.yaml");
        String text = """
                server: {listen: 127.0.0.1:0}
                host: {interval: 500ms, timeout: 400ms}
                engines:
                  - name: sim
                    api: openai
                    url: http://127.0.0.1:%d
                    health: {interval: 1s}
                    scenarios: [{name: interactive, interval: 1h}]
                rules:
                  EngineDown: {for: 1s}
                %s
                alerts:
                  webhook: {url: "http://127.0.0.1:%d/hook", timeout: 2s}
                  baseline: {file: %s}
                """;
        int hook = receiver.getAddress().getPort();
        Files.writeString(config, text.formatted(enginePort, "", hook, dir.resolve("baselines.json")));
        AtomicBoolean scraping = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        List<String> failures = new CopyOnWriteArrayList<>();
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "-c", config.toString())) {
            int port = agent.awaitListening();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> agent.get("/metrics").body()
                    .contains("tailwatch_engine_up{tailwatch_engine_name=\"sim\"} 1.0"));
            sim.close();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).until(() -> {
                JsonNode a = engineDown(agent);
                return a != null && a.path("state").asText().equals("firing");
            });
            String firedAt = engineDown(agent).path("fired_at").asText();
            await().atMost(Duration.ofSeconds(15)).until(() -> hooks.stream()
                    .anyMatch(h -> h.path("status").asText().equals("firing")));

            Thread scraper = new Thread(() -> {
                while (scraping.get()) {
                    try {
                        int status = scrape(port);
                        if (status == 200) {
                            answered.incrementAndGet();
                        } else {
                            failures.add("HTTP " + status);
                        }
                    } catch (IOException e) {
                        failures.add(e.toString());
                    }
                }
            }, "scraper");
            scraper.start();
            try {
                for (int i = 1; i <= RELOADS; i++) {
                    HostileInputIT.signal(agent, "HUP");
                    int done = i;
                    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> reloads(agent) >= done);
                }
                // A changed rule: the evaluator is rebuilt and takes the firing instance over.
                Files.writeString(config, text.formatted(enginePort, "  SwapUsedHigh: {threshold: 2GiB, for: 2m}", hook,
                        dir.resolve("baselines.json")));
                HostileInputIT.signal(agent, "HUP");
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> reloads(agent) >= RELOADS + 1);
                int before = answered.get();
                await().atMost(Duration.ofSeconds(10)).until(() -> answered.get() > before + 5);
            } finally {
                scraping.set(false);
                scraper.join(15_000);
            }
            assertThat(failures).as("scrapes refused or cut during %d reloads", RELOADS + 1).isEmpty();
            assertThat(answered.get()).isGreaterThan(RELOADS);
            assertThat(agent.stderr()).contains("no setting changed, everything kept", "restarted rules; everything else kept");
            assertThat(Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("reload").path("restarted"))
                    .extracting(JsonNode::asText).containsExactly("rules");
            JsonNode a = engineDown(agent);
            assertThat(a.path("state").asText()).isEqualTo("firing");
            assertThat(a.path("fired_at").asText()).isEqualTo(firedAt);
            assertThat(hooks.stream().filter(h -> h.path("status").asText().equals("firing")).count())
                    .as("no second firing notification").isEqualTo(1);

            // The engine comes back on its port: the alert kept across the reloads is resolved, and the webhook says so.
            sim = EngineSimulator.start("openai", "127.0.0.1", enginePort, o);
            await().atMost(Duration.ofSeconds(30)).until(() -> hooks.stream()
                    .anyMatch(h -> h.path("status").asText().equals("resolved")
                            && h.path("alerts").get(0).path("labels").path("alertname").asText().equals("EngineDown")));
        } finally {
            sim.close();
            receiver.stop(0);
        }
    }
}
