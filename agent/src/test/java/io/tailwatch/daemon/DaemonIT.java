package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Promtool;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The real jar on a loopback port, scraped and checked as a user and Prometheus would. */
class DaemonIT {
    static Path config(Path dir, String yaml) throws IOException {
        Path f = dir.resolve("tailwatch.yaml");
        Files.writeString(f, "server:\n  listen: 127.0.0.1:0\n" + yaml + "engines: []\n");
        return f;
    }

    static double value(String exposition, String series) {
        Pattern p = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE);
        Matcher m = p.matcher(exposition);
        if (!m.find()) {
            throw new AssertionError("no series " + series + " in:\n" + exposition);
        }
        return Double.parseDouble(m.group(1));
    }

    static long meminfo(String key) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith(key + ":")) {
                return Long.parseLong(line.split("\\s+")[1]) * 1024;
            }
        }
        throw new AssertionError("no " + key);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void scrapeAgreesWithProcMeminfoAndPassesPromtool(@TempDir Path dir) throws Exception {
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", config(dir, "host:\n  interval: 1s\n").toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/healthz").statusCode() == 200);
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/metrics").body().contains("system_memory_limit_bytes"));
            HttpResponse<String> r = agent.get("/metrics");
            long total = meminfo("MemTotal");
            long swapUsed = meminfo("SwapTotal") - meminfo("SwapFree");
            long available = meminfo("MemAvailable");
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            String body = r.body();
            assertThat(value(body, "system_memory_limit_bytes")).isEqualTo((double) total);
            assertThat(value(body, "system_paging_usage_bytes{system_paging_state=\"used\"}"))
                    .isCloseTo((double) swapUsed, org.assertj.core.data.Offset.offset(64.0 * 1024 * 1024));
            assertThat(value(body, "tailwatch_memory_available_bytes"))
                    .isCloseTo((double) available, org.assertj.core.data.Percentage.withPercentage(10));
            assertThat(value(body, "tailwatch_sampler_success{tailwatch_sampler_name=\"memory\"}")).isEqualTo(1.0);
            assertThat(body).contains("target_info{").contains("service_name=\"tailwatch\"").contains("os_type=\"linux\"");

            Promtool.Result lint = Promtool.run(body, "check", "metrics");
            assertThat(lint.exitCode()).as(lint.output()).isZero();

            HttpResponse<String> om = agent.get("/metrics", "Accept", "application/openmetrics-text; version=1.0.0");
            assertThat(om.headers().firstValue("Content-Type").orElse("")).startsWith("application/openmetrics-text");
            assertThat(om.body()).endsWith("# EOF\n");
            // A strict OpenMetrics parser reads it, # UNIT lines included: Prometheus' own, through promtool's
            // backfill (which wants a timestamp on every sample; OpenMetrics timestamps are seconds). It refuses
            // a unit that is not the family name's suffix, as the specification says (checked on a bad copy).
            assertThat(om.body()).contains("# UNIT system_memory_limit_bytes bytes\n");
            long now = System.currentTimeMillis() / 1000;
            String stamped = om.body().lines().map(l -> l.startsWith("#") ? l : l + " " + now)
                    .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
            Path omFile = dir.resolve("scrape.om");
            Files.writeString(omFile, stamped);
            Promtool.Result strict = Promtool.run(null, "tsdb", "create-blocks-from", "openmetrics", omFile.toString(),
                    dir.resolve("blocks").toString());
            assertThat(strict.exitCode()).as(strict.output()).isZero();
            Path bad = dir.resolve("bad.om");
            Files.writeString(bad, stamped.replace("# UNIT system_memory_limit_bytes bytes", "# UNIT system_memory_limit_bytes seconds"));
            Promtool.Result refused = Promtool.run(null, "tsdb", "create-blocks-from", "openmetrics", bad.toString(),
                    dir.resolve("blocks-bad").toString());
            assertThat(refused.exitCode()).as(refused.output()).isNotZero();
            assertThat(refused.output()).contains("unit");

            HttpResponse<String> status = agent.get("/api/v1/status");
            assertThat(status.statusCode()).isEqualTo(200);
            var json = Json.MAPPER.readTree(status.body());
            assertThat(json.at("/host/memory/total_bytes").asLong()).isEqualTo(total);
            assertThat(json.at("/host/sampled_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d.*Z");
        }
    }

    @Test
    void fixtureProcfsDrivesTheSignalsAndAGarbledFileFailsOnlyItsSampler(@TempDir Path dir) throws Exception {
        Path proc = dir.resolve("proc");
        Files.createDirectories(proc.resolve("pressure"));
        Files.copy(AgentProcess.root().resolve("agent/src/test/resources/fixtures/linux-swap/proc/meminfo"), proc.resolve("meminfo"));
        Files.writeString(proc.resolve("pressure/memory"),
                "some avg10=55.00 avg60=20.00 avg300=5.00 total=1\nfull avg10=12.00 avg60=4.00 avg300=1.00 total=1\n");
        Path cfg = config(dir, "host:\n  interval: 200ms\n  timeout: 100ms\n  procfs: " + proc + "\n  sysfs: " + dir.resolve("sys") + "\n");
        try (AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", cfg.toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/metrics").body().contains("system_paging_usage_bytes"));
            String body = agent.get("/metrics").body();
            assertThat(value(body, "system_paging_usage_bytes{system_paging_state=\"used\"}")).isEqualTo(2147483648.0);
            assertThat(value(body, "tailwatch_memory_pressure_level")).isEqualTo(2.0);
            // No thermal zones, cpufreq or RAPL in the fixture: absent, not zero.
            assertThat(body).doesNotContain("hw_temperature_celsius{").doesNotContain("hw_power_watts{")
                    .doesNotContain("tailwatch_cpu_speed_limit_ratio ");

            Files.writeString(proc.resolve("meminfo"), "MemTotal: garbage\n\u0000\u0007\n");
            await().atMost(Duration.ofSeconds(20)).until(() -> agent.get("/metrics").body()
                    .contains("tailwatch_sampler_success{tailwatch_sampler_name=\"memory\"} 0.0"));
            HttpResponse<String> r = agent.get("/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("tailwatch_sampler_success{tailwatch_sampler_name=\"pressure\"} 1.0")
                    .doesNotContain("system_memory_limit_bytes ");
            assertThat(value(r.body(), "tailwatch_memory_pressure_level")).isEqualTo(2.0);
            assertThat(agent.get("/healthz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void apiNeedsTheTokenWhenOneIsSet(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\n  auth_token: ${TW_TEST_TOKEN}\nengines: []\n");
        try (AgentProcess agent = AgentProcess.start(Map.of("TW_TEST_TOKEN", "hunter2-secret"), "run", "--config", cfg.toString())) {
            agent.awaitListening();
            assertThat(agent.get("/api/v1/status").statusCode()).isEqualTo(401);
            assertThat(agent.get("/api/v1/status", "Authorization", "Bearer wrong").statusCode()).isEqualTo(401);
            assertThat(agent.get("/api/v1/status", "Authorization", "Bearer hunter2-secret").statusCode()).isEqualTo(200);
            assertThat(agent.get("/metrics").statusCode()).isEqualTo(200);
            assertThat(agent.get("/metrics").body()).doesNotContain("hunter2");
            assertThat(agent.stderr() + agent.stdout()).doesNotContain("hunter2");
        }
    }

    @Test
    void sigtermStopsCleanlyAndReleasesThePort(@TempDir Path dir) throws Exception {
        AgentProcess agent = AgentProcess.start(Map.of(), "run", "--config", config(dir, "").toString());
        int port = agent.awaitListening();
        assertThat(agent.terminate(Duration.ofSeconds(5))).isIn(0, 143);
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
        }
        agent.close();
    }

    @Test
    void portInUseExitsOneNamingTheAddress(@TempDir Path dir) throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = taken.getLocalPort();
            AgentProcess.Result r = AgentProcess.run(Map.of(), "run", "--config", config(dir, "").toString(),
                    "--listen", "127.0.0.1:" + port);
            assertThat(r.exitCode()).isEqualTo(1);
            assertThat(r.stderr()).contains("cannot listen on 127.0.0.1:" + port);
        }
    }

    @Test
    void brokenConfigExitsTwoWithEveryProblemAndStartsNothing(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "server:\n  listen: 127.0.0.1:0\n  colour: blue\nhost:\n  interval: soon\n");
        AgentProcess.Result run = AgentProcess.run(Map.of(), "run", "--config", bad.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.stderr()).contains(bad + ": line 3, column 3: server.colour: unknown key")
                .contains("line 5, column 13: host.interval: expected a duration");
        assertThat(run.stderr()).doesNotContain("listening on");
        AgentProcess.Result check = AgentProcess.run(Map.of(), "config", "check", bad.toString());
        assertThat(check.exitCode()).isEqualTo(2);
        assertThat(check.stderr()).isEqualTo(run.stderr());
        AgentProcess.Result ok = AgentProcess.run(Map.of(), "config", "check",
                AgentProcess.root().resolve("config/tailwatch.yaml").toString());
        assertThat(ok.exitCode()).isZero();
    }

    @Test
    void versionAndMetricsReference() throws Exception {
        AgentProcess.Result v = AgentProcess.run(Map.of(), "--version");
        assertThat(v.exitCode()).isZero();
        assertThat(v.stdout()).startsWith("tailwatch 0.");
        AgentProcess.Result m = AgentProcess.run(new HashMap<>(), "metrics");
        assertThat(m.stdout()).isEqualTo(Files.readString(AgentProcess.root().resolve("docs/metrics.md")));
    }
}
