package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engines that are not in the config's list get their memory too, found by the process listening on
 * their port: one found by {@code engines: auto}, and the one a {@code ladder --url} runs against. The
 * simulator runs in this JVM, so the process the agent must find is this test's own (its resident size
 * is read from the same /proc, expected within a loose bound of what this JVM reports about itself).
 */
class EngineMemoryByPortIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private static long ownRss() throws Exception {
        for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no VmRSS");
    }

    @Test
    void aDiscoveredEngineGetsItsMemoryFoundByItsListeningPort() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(10), 200))) {
            Path cfg = tmp.resolve("tailwatch.yaml");
            Files.writeString(cfg, """
                    server:
                      listen: 127.0.0.1:0
                    host:
                      interval: 1s
                    engines: auto
                    discovery:
                      well_known_ports: false
                      ports: [%d]
                    """.formatted(sim.port()));
            try (AgentProcess agent = AgentProcess.start(Map.of("TAILWATCH_DATA_DIR", tmp.resolve("data").toString()),
                    "run", "--config", cfg.toString())) {
                agent.awaitListening();
                String series = "process_memory_usage_bytes{tailwatch_engine_name=\"llamacpp\"}";
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
                        agent.get("/metrics").body().contains(series));
                String body = agent.get("/metrics").body();
                double rss = body.lines().filter(l -> l.startsWith(series)).mapToDouble(l -> Double.parseDouble(l.substring(
                        l.lastIndexOf(' ') + 1))).findFirst().orElseThrow();
                long own = ownRss();
                assertThat(rss).as("this JVM's resident size, %d now", own).isBetween(own / 4.0, own * 4.0);

                // A reload that restarts host sampling (a changed host section) keeps following the found
                // engine: its memory is read afresh by the new sampler (the value moves), not left behind.
                Files.writeString(cfg, Files.readString(cfg).replace("interval: 1s", "interval: 700ms"));
                new ProcessBuilder("kill", "-HUP", Long.toString(agent.process().pid())).start().waitFor();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
                        JSON.readTree(agent.get("/api/v1/status").body()).path("reload").path("restarted").toString()
                                .contains("host sampling"));
                long[] allocate = new long[4 << 20]; // this JVM's resident size moves by 32 MiB
                java.util.Arrays.fill(allocate, 1L);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() ->
                        agent.get("/metrics").body().lines().filter(l -> l.startsWith(series))
                                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                                .anyMatch(v -> v != rss));
                java.lang.ref.Reference.reachabilityFence(allocate); // held until the new sampler has read it
            }
        }
    }

    @Test
    void ladderWithUrlRecordsTheEnginesFootprintAsFromAConfig() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withTiming(Duration.ofMillis(10), 400))) {
            Path out = tmp.resolve("ladder");
            AgentProcess.Result r = AgentProcess.run(Map.of("TAILWATCH_DATA_DIR", tmp.resolve("data").toString()), "ladder",
                    "--url", "http://127.0.0.1:" + sim.port(), "--api", "openai", "--levels", "1", "--requests-per-level", "2",
                    "--max-tokens", "4", "--prompt-tokens", "8", "--out", out.toString(), "--no-history", "--force", "--quiet");
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            JsonNode level = JSON.readTree(out.resolve("summary.json").toFile()).get("levels").get(0);
            long own = ownRss();
            for (String when : new String[] {"host_before", "host_after"}) {
                JsonNode fp = level.get(when).get("engine_footprint_bytes");
                assertThat(fp).as(when + " in " + level).isNotNull();
                assertThat(fp.asDouble()).isBetween(own / 4.0, own * 4.0);
            }
        }
    }
}
