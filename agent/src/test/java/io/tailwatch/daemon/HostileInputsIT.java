package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.SelfMetrics;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.HostileEngine;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real agent, started through the release launcher with the shipped JVM flags (24 MiB heap,
 * exit on out-of-memory), against every input that used to run it out of memory: an Ollama with
 * 4,000 loaded models, 20,000 served models with a 30,000-sample /metrics, a model list over the
 * byte bound, a model that changes at every inventory read (probed every second), and a process
 * table whose command lines are 2 MB each, with a host file that blocks on read. It must stay up,
 * serve every scrape, keep its exposition within its bound and its resident memory and threads flat.
 */
@EnabledOnOs(OS.LINUX)
class HostileInputsIT {
    /** The soak's length (-Psoak); the gate runs the same loop and checks for {@link #GATE}. */
    private static final Duration RUN = Duration.ofSeconds(Long.getLong("hostile.seconds", 75));
    private static final Duration GATE = Duration.ofSeconds(20);
    /** Resident bound asserted: the steady state is about 60 MiB (docs/performance.md). */
    private static final long MAX_RSS_KIB = 160 * 1024;

    @TempDir
    Path dir;

    /** A field of /proc/PID/status in its unit (kB for memory). */
    static long status(long pid, String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.substring(key.length() + 1).trim().split("\\s+")[0]);
            }
        }
        throw new AssertionError("no " + key);
    }

    /** A procfs root with the memory files of a real host, nine processes of 2 MB arguments and a FIFO. */
    private Path procfs() throws Exception {
        Path proc = Files.createDirectories(dir.resolve("proc"));
        Path fixture = AgentProcess.root().resolve("agent/src/test/resources/fixtures/linux-swap/proc");
        Files.copy(fixture.resolve("meminfo"), proc.resolve("meminfo"));
        Path pressure = Files.createDirectories(proc.resolve("pressure"));
        Process mk = new ProcessBuilder("mkfifo", pressure.resolve("memory").toString()).inheritIO().start();
        assertThat(mk.waitFor()).isZero();
        byte[] huge = new byte[2 << 20];
        java.util.Arrays.fill(huge, (byte) 'x');
        for (int i = 0; i < huge.length; i += 4096) {
            huge[i] = 0;
        }
        for (int pid = 100; pid < 109; pid++) {
            Path d = Files.createDirectories(proc.resolve(Integer.toString(pid)));
            Files.writeString(d.resolve("stat"), pid + " (sleep) S 1 " + pid + " " + pid + " 0 -1 4194560 0 0\n");
            Files.write(d.resolve("cmdline"), huge);
            Files.writeString(d.resolve("status"), "Name:\tsleep\nVmRSS:\t  100 kB\n");
        }
        return proc;
    }

    @Test
    @Tag("soak")
    void theAgentSurvivesEveryCrashInputWithTheShippedFlags() throws Exception {
        survivesEveryCrashInput(RUN);
    }

    /** The same inputs and checks for 20 s, in the default build. */
    @Test
    void theAgentSurvivesEveryCrashInputForTwentySeconds() throws Exception {
        survivesEveryCrashInput(GATE);
    }

    private void survivesEveryCrashInput(Duration run) throws Exception {
        try (HostileEngine ollama = new HostileEngine(4_000, 1, 0, 10, false);
             HostileEngine served = new HostileEngine(1, 20_000, 0, 30_000, false);
             HostileEngine big = new HostileEngine(1, 30_000, 160, 10, false);
             HostileEngine rotating = new HostileEngine(1, 1, 0, 10, true)) {
            Path proc = procfs();
            Path sys = Files.createDirectories(dir.resolve("sys"));
            String yaml = "server:\n  listen: 127.0.0.1:0\n"
                    + "host:\n  interval: 1s\n  timeout: 500ms\n  procfs: " + proc + "\n  sysfs: " + sys + "\n"
                    + "engines:\n"
                    + engine("ollama-many", "ollama", ollama, "none", 5)
                    + engine("served-many", "openai", served, "vllm", 5)
                    + engine("models-too-big", "openai", big, "none", 5)
                    + engine("rotating", "openai", rotating, "none", 1);
            Path config = dir.resolve("tailwatch.yaml");
            Files.writeString(config, yaml);
            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", config.toString())) {
                agent.awaitListening();
                long pid = agent.process().pid();
                String cmdline = Files.readString(Path.of("/proc/" + pid + "/cmdline")).replace('\0', ' ');
                assertThat(cmdline).contains("-Xmx24m").contains("-XX:+ExitOnOutOfMemoryError");

                long end = System.nanoTime() + run.toNanos();
                long maxRss = 0;
                long maxBody = 0;
                int scrapes = 0;
                List<Long> threads = new ArrayList<>();
                String last = "";
                while (System.nanoTime() < end) {
                    assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                    HttpResponse<String> r = agent.get("/metrics");
                    assertThat(r.statusCode()).isEqualTo(200);
                    last = r.body();
                    maxBody = Math.max(maxBody, last.length());
                    maxRss = Math.max(maxRss, status(pid, "VmRSS"));
                    threads.add(status(pid, "Threads"));
                    scrapes++;
                    Thread.sleep(1000);
                }
                System.out.printf("hostile inputs: %d scrapes in %d s, max exposition %d bytes, max RSS %d KiB,"
                        + " threads %s..%s, rotations %d%n", scrapes, run.toSeconds(), maxBody, maxRss,
                        threads.get(threads.size() / 4), threads.get(threads.size() - 1), rotating.rotations());

                assertThat(agent.process().isAlive()).as(agent.stderr()).isTrue();
                assertThat(rotating.rotations()).isGreaterThan(run.toSeconds() / 2);
                assertThat((long) maxBody).isLessThanOrEqualTo(MetricHub.Limits.DEFAULT.maxExpositionBytes() + 64 * 1024);
                assertThat(maxRss).isLessThan(MAX_RSS_KIB);
                // A blocked host file holds one thread, not one per cycle.
                assertThat(threads.get(threads.size() - 1) - threads.get(threads.size() / 4)).isLessThanOrEqualTo(3);

                // Over a bound is said as such, never as down.
                for (String e : List.of("ollama-many", "served-many", "models-too-big", "rotating")) {
                    assertThat(last).contains(series(EngineMetrics.UP, e) + " 1");
                }
                assertThat(last).contains(series(EngineMetrics.MODELS_LOADED, "served-many") + " 20000");
                assertThat(last).contains(series(EngineMetrics.MODELS_LOADED, "ollama-many") + " 4000");
                assertThat(last).contains(SelfMetrics.SERIES_DROPPED.prometheusName());
                assertThat(last).contains(SelfMetrics.SAMPLER_STUCK.prometheusName() + "{"
                        + MetricDef.labelName(AttrKeys.SAMPLER) + "=\"pressure\"} 1");
                String status = agent.get("/api/v1/status").body();
                assertThat(status.split("stuck:", -1)).as("only the blocked sampler is stuck").hasSize(2);
                assertThat(status).contains("body larger than 4194304 bytes").contains("20000 entries")
                        .contains("4000 entries").contains("stuck:");
                HttpResponse<String> health = agent.get("/healthz");
                assertThat(health.statusCode()).isEqualTo(503);
                assertThat(health.body()).startsWith("degraded:").contains("pressure");
                assertThat(agent.stderr() + agent.stdout()).doesNotContain("OutOfMemoryError");
            }
        }
    }

    private static String series(MetricDef def, String engine) {
        return def.prometheusName() + "{" + MetricDef.labelName(AttrKeys.ENGINE) + "=\"" + engine + "\"}";
    }

    private static String engine(String name, String api, HostileEngine e, String signals, int probeSeconds) {
        return "  - name: " + name + "\n    api: " + api + "\n    url: " + e.url() + "\n"
                + "    health: {interval: " + probeSeconds + "s, timeout: " + (probeSeconds == 1 ? "900ms" : "4s") + "}\n"
                + "    signals: {source: " + signals + ", interval: 10s}\n"
                + "    process: {names: [sleep]}\n"
                + "    scenarios:\n      - name: interactive\n        interval: " + probeSeconds + "s\n"
                + "        timeouts: {connect: 500ms, first_token: 800ms, total: 900ms}\n";
    }
}
