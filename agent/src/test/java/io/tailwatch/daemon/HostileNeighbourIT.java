package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.FloodServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.tailwatch.testing.FaultServer;
import io.tailwatch.testing.Promtool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local processes on the ports {@code engines: auto} checks, answering every request with megabytes
 * of an engine-like JSON, against the real agent started through the release launcher with the
 * shipped JVM flags (24 MiB heap, exit on out-of-memory): it must stay up, answer every scrape, and
 * keep its resident memory and threads flat while it keeps reading them as engines.
 */
@EnabledOnOs(OS.LINUX)
class HostileNeighbourIT {
    /** The soak's length (-Psoak); the gate runs the same loop for {@link #GATE}. */
    private static final Duration SOAK = Duration.ofSeconds(Long.getLong("neighbour.seconds", 150));
    private static final Duration GATE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private Path config(List<FloodServer> neighbours) throws IOException {
        StringBuilder ports = new StringBuilder();
        for (FloodServer f : neighbours) {
            ports.append(ports.length() == 0 ? "" : ", ").append(f.port());
        }
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 5s\n"
                + "engines: auto\ndiscovery:\n  well_known_ports: false\n  interval: 30s\n  ports: [" + ports + "]\n");
        return config;
    }

    private static long status(long pid, String key) throws IOException {
        return HostileInputsIT.status(pid, key);
    }

    /** One 4 MiB answer on one port, and four ports answering 100 MB: both used to end the JVM at start. */
    @Test
    void neighboursAnsweringMegabytesDoNotEndTheAgent() throws Exception {
        try (FloodServer four = new FloodServer(4L << 20);
             FloodServer a = new FloodServer(100_000_000L);
             FloodServer b = new FloodServer(100_000_000L);
             FloodServer c = new FloodServer(100_000_000L);
             FloodServer d = new FloodServer(100_000_000L);
             AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config",
                     config(List.of(four, a, b, c, d)).toString())) {
            agent.awaitListening();
            String cmdline = Files.readString(Path.of("/proc/" + agent.process().pid() + "/cmdline")).replace('\0', ' ');
            assertThat(cmdline).contains("-Xmx24m").contains("-XX:+ExitOnOutOfMemoryError");
            // Discovery has read every port (and found an "engine" on each) once the status lists them.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
                assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                return agent.get("/api/v1/status").body().contains("127.0.0.1:" + d.port());
            });
            for (FloodServer f : List.of(four, a, b, c, d)) {
                assertThat(f.answered()).isPositive();
            }
            for (int i = 0; i < 10; i++) {
                assertThat(agent.get("/metrics").statusCode()).isEqualTo(200);
                Thread.sleep(500);
            }
            assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
            assertThat(agent.stderr() + agent.stdout()).doesNotContain("OutOfMemoryError");
        }
    }

    /** 400 data lines of 60 KiB in one SSE event (24 MB, all of it under the line bound): ended the agent by OOM. */
    static void multiLineSse(String request, java.io.OutputStream out) throws Exception {
        if (request.startsWith("GET")) {
            String b = "{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}";
            FaultServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + b.length()
                    + "\r\nConnection: close\r\n\r\n" + b);
            return;
        }
        FaultServer.write(out, FaultServer.SSE_HEADERS.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
        String line = FaultServer.chunk("data: " + "x".repeat(60 * 1024) + "\n");
        for (int i = 0; i < 400; i++) {
            FaultServer.write(out, line);
        }
        FaultServer.write(out, FaultServer.chunk("\n") + "0\r\n\r\n");
    }

    /** An engine whose every answer reports -10 output tokens: used to turn every scrape into a server error. */
    static void negativeUsage(String request, java.io.OutputStream out) throws Exception {
        if (request.startsWith("GET")) {
            multiLineSse(request, out);
            return;
        }
        FaultServer.write(out, FaultServer.SSE_HEADERS.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
        FaultServer.write(out, FaultServer.chunk("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
                + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-3,\"completion_tokens\":-10}}\n\ndata: [DONE]\n\n"));
        FaultServer.write(out, "0\r\n\r\n");
    }

    private Path engines(FaultServer sse, FaultServer negative) throws IOException {
        String scenario = "    scenarios:\n      - name: s\n        interval: 2s\n        max_tokens: 8\n"
                + "        timeouts: {connect: 1s, first_token: 1s, total: 1500ms}\n    health: {interval: 1s}\n    signals: {source: none}\n";
        Path config = dir.resolve("engines.yaml");
        Files.writeString(config, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                + "  - name: multiline\n    api: openai\n    url: http://127.0.0.1:" + sse.port() + "\n    model: m\n" + scenario
                + "  - name: negative\n    api: openai\n    url: http://127.0.0.1:" + negative.port() + "\n    model: m\n" + scenario);
        return config;
    }

    /** The multi-line SSE neighbour and the negative-usage engine probed every second for {@code run}. */
    private void multiLineAndNegative(Duration run) throws Exception {
        Promtool.path();
        try (FaultServer sse = new FaultServer(HostileNeighbourIT::multiLineSse);
             FaultServer negative = new FaultServer(HostileNeighbourIT::negativeUsage);
             AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", engines(sse, negative).toString())) {
            agent.awaitListening();
            long pid = agent.process().pid();
            long end = System.nanoTime() + run.toNanos();
            List<Long> rss = new ArrayList<>();
            String body = "";
            while (System.nanoTime() < end) {
                assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                HttpResponse<String> r = agent.get("/metrics");
                assertThat(r.statusCode()).isEqualTo(200);
                body = r.body();
                assertThat(Promtool.run(body, "check", "metrics").output()).doesNotContain("error");
                rss.add(status(pid, "VmRSS"));
                Thread.sleep(1000);
            }
            System.out.printf("multi-line SSE and negative usage: %d scrapes, RSS %d -> %d KiB%n", rss.size(),
                    rss.get(rss.size() / 4), rss.get(rss.size() - 1));
            assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
            assertThat(agent.stderr() + agent.stdout()).doesNotContain("OutOfMemoryError");
            assertThat(body).as("the multi-line event is a classified probe failure")
                    .containsPattern("tailwatch_engine_name=\"multiline\"[^\n]*error_type=\"malformed\"|error_type=\"malformed\"[^\n]*tailwatch_engine_name=\"multiline\"");
            assertThat(body).contains("tailwatch_input_rejected_total{tailwatch_input_field=\"completion_tokens\"");
            if (rss.size() >= 8) {
                int q = rss.size() / 4;
                long early = rss.subList(q, 2 * q).stream().mapToLong(Long::longValue).max().orElseThrow();
                long late = rss.subList(3 * q, rss.size()).stream().mapToLong(Long::longValue).max().orElseThrow();
                assertThat(late).as("resident memory flat").isLessThan(early + 8 * 1024);
            }
        }
    }

    @Test
    void aMultiLineSseNeighbourAndANegativeUsageEngineLeaveEveryScrapeWhole() throws Exception {
        multiLineAndNegative(Duration.ofSeconds(12));
    }

    @Test
    @Tag("soak")
    void aMultiLineSseNeighbourAndANegativeUsageEngineForMinutes() throws Exception {
        multiLineAndNegative(SOAK);
    }

    /**
     * A neighbour answering 100 MB on a discovery port for a few minutes (it is found as an engine and
     * then health-checked, probed and read for signals like one) beside a scrape every second.
     */
    @Test
    @Tag("soak")
    void aHostileNeighbourBesideAScrapeLoopForMinutes() throws Exception {
        neighbourBesideAScrapeLoop(SOAK);
    }

    /** The same loop and checks for half a minute, in the default build. */
    @Test
    void aHostileNeighbourBesideAScrapeLoopForHalfAMinute() throws Exception {
        neighbourBesideAScrapeLoop(GATE);
    }

    private void neighbourBesideAScrapeLoop(Duration run) throws Exception {
        try (FloodServer neighbour = new FloodServer(100_000_000L);
             AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config",
                     config(List.of(neighbour)).toString())) {
            agent.awaitListening();
            long pid = agent.process().pid();
            long end = System.nanoTime() + run.toNanos();
            List<Long> rss = new ArrayList<>();
            List<Long> threads = new ArrayList<>();
            int scrapes = 0;
            while (System.nanoTime() < end) {
                assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                HttpResponse<String> r = agent.get("/metrics");
                assertThat(r.statusCode()).as("scrape %d", scrapes).isEqualTo(200);
                scrapes++;
                rss.add(status(pid, "VmRSS"));
                threads.add(status(pid, "Threads"));
                Thread.sleep(1000);
            }
            int q = rss.size() / 4;
            long rssEarly = rss.subList(q, 2 * q).stream().mapToLong(Long::longValue).max().orElseThrow();
            long rssLate = rss.subList(3 * q, rss.size()).stream().mapToLong(Long::longValue).max().orElseThrow();
            long threadsEarly = threads.subList(q, 2 * q).stream().mapToLong(Long::longValue).max().orElseThrow();
            long threadsLate = threads.subList(3 * q, threads.size()).stream().mapToLong(Long::longValue).max().orElseThrow();
            System.out.printf("hostile neighbour: %d scrapes in %d s, %d requests answered with 100 MB, RSS max %d KiB"
                            + " (second quarter) -> %d KiB (last), threads %d -> %d%n", scrapes, run.toSeconds(),
                    neighbour.answered(), rssEarly, rssLate, threadsEarly, threadsLate);
            // Read again and again: more than 10 times in the 150 s soak, in proportion in a shorter run.
            assertThat(neighbour.answered()).as("the neighbour was read again and again").isGreaterThan(Math.max(2, 10 * run.toSeconds() / 150));
            assertThat(rssLate).as("resident memory flat").isLessThan(rssEarly + 8 * 1024);
            assertThat(threadsLate).as("threads flat").isLessThanOrEqualTo(threadsEarly + 2);
            assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
            assertThat(agent.stderr() + agent.stdout()).doesNotContain("OutOfMemoryError");
        }
    }
}
