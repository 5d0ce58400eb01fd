package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** `tailwatch doctor` end to end through the shaded jar, on this Linux machine. */
@EnabledOnOs(OS.LINUX)
class DoctorIT {
    @TempDir
    Path dir;

    record Run(int exit, String out) {
    }

    private Run doctor(String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", System.getProperty("tailwatch.jar"), "doctor"));
        cmd.addAll(List.of(extra));
        Path out = dir.resolve("out-" + System.nanoTime());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("doctor did not finish within 120 s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    /** The block of one check: its verdict and signal line and the indented detail lines under it. */
    private static String row(String out, String signal, String tool) {
        List<String> blocks = new ArrayList<>();
        for (String l : out.lines().toList()) {
            if (!l.startsWith(" ") || blocks.isEmpty()) {
                blocks.add(l);
            } else {
                blocks.set(blocks.size() - 1, blocks.get(blocks.size() - 1) + "\n" + l);
            }
        }
        return blocks.stream().filter(b -> b.split("\n", -1)[0].endsWith("  " + signal)
                        && b.replaceAll("\n +", " ").contains("vs " + tool + ":")).findFirst()
                .orElseThrow(() -> new AssertionError("no check " + signal + " / " + tool + " in:\n" + out));
    }

    @Test
    void agreesWithFreeAndProcMeminfoOnThisMachine() throws Exception {
        Run r = doctor();
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(row(r.out(), "system.memory.limit", "free -b -w (Mem total)")).startsWith("agree ");
        assertThat(row(r.out(), "tailwatch.memory.available", "free -b -w (Mem available)")).startsWith("agree ");
        assertThat(row(r.out(), "system.memory.usage{buffers}", "free -b -w (Mem buffers)")).startsWith("agree ");
        assertThat(row(r.out(), "system.memory.usage{cached}", "free -b -w (Mem cache = Cached + SReclaimable)")).startsWith("agree ");
        assertThat(row(r.out(), "system.memory.usage{free}", "sysinfo(2) (freeram)")).startsWith("agree ");
        assertThat(row(r.out(), "system.cpu.utilization{idle}", "/proc/stat read before and after each sample")).startsWith("agree ");
        assertThat(row(r.out(), "system.memory.usage{used}", "free -b -w (Mem total - available)"))
                .startsWith("agree ");
        assertThat(row(r.out(), "system.paging.usage{used}", "free -b -w (Swap used)")).startsWith("agree ");
        assertThat(row(r.out(), "system.memory.limit", "sysinfo(2) (totalram)")).startsWith("agree ");
        assertThat(r.out()).contains("0 disagree or invalid").contains("memory: ok").contains("swap: ok");
        assertThat(r.out().lines()).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(100));
        assertThat(r.out()).containsPattern("(?m)^at \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} ")
                .containsPattern("memory: ok in \\d+ ms").doesNotContain("PT");
    }

    @Test
    void jsonHasEveryCheckInFull() throws Exception {
        Run text = doctor();
        Run r = doctor("--json");
        assertThat(r.exit()).as(r.out()).isZero();
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertThat(j.path("failed").asBoolean(true)).isFalse();
        assertThat(java.time.Instant.parse(j.path("time").asText())).isNotNull();
        com.fasterxml.jackson.databind.JsonNode limit = null;
        for (com.fasterxml.jackson.databind.JsonNode c : j.path("checks")) {
            if (c.path("signal").asText().equals("system.memory.limit") && c.path("tool").asText().equals("free -b -w (Mem total)")) {
                limit = c;
            }
        }
        assertThat(limit).as(r.out()).isNotNull();
        assertThat(limit.path("verdict").asText()).isEqualTo("agree");
        assertThat(limit.path("native").asText()).endsWith(" GiB)");
        assertThat(limit.path("tolerance").asText()).isNotEmpty();
        assertThat(j.path("checks").size()).isEqualTo(text.out().lines().filter(l -> !l.isEmpty() && !l.startsWith(" ")
                && l.matches("^(agree|DISAGREE|ok \\(native only\\)|INVALID|n/a) .*")).count());
        assertThat(j.path("samplers").findValuesAsText("name")).contains("memory", "swap");
        assertThat(j.path("samplers").get(0).path("duration_seconds").isNumber()).isTrue();
    }

    @Test
    void exitsNonZeroWhenTheNativeReadingDisagreesWithTheTools() throws Exception {
        // The samplers read a procfs fixture of a 1 GiB machine; free -b reads the real one.
        Path proc = Files.createDirectories(dir.resolve("proc"));
        Files.writeString(proc.resolve("meminfo"), """
                MemTotal:        1048576 kB
                MemFree:          524288 kB
                MemAvailable:     786432 kB
                Buffers:            1024 kB
                Cached:           131072 kB
                SwapTotal:             0 kB
                SwapFree:              0 kB
                SReclaimable:       2048 kB
                """);
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, "host:\n  procfs: " + proc + "\n  sysfs: " + dir.resolve("sys") + "\nengines: []\n");
        Run r = doctor("--config", config.toString());
        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(row(r.out(), "system.memory.limit", "free -b -w (Mem total)")).contains("DISAGREE").contains("1073741824 B");
        // sysinfo(2) asks the kernel itself, not the procfs the samplers were pointed at.
        assertThat(row(r.out(), "system.memory.limit", "sysinfo(2) (totalram)")).contains("DISAGREE");
    }

    @Test
    void engineProcessRssAgreesWithPs() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process server = new ProcessBuilder("python3", "-m", "http.server", "--bind", "127.0.0.1", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            int p = port;
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> {
                try (java.net.Socket c = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), p)) {
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            Path config = dir.resolve("engine.yaml");
            Files.writeString(config, "engines:\n  - name: py\n    api: openai\n    url: http://127.0.0.1:" + port + "\n");
            Run r = doctor("--config", config.toString());
            assertThat(r.exit()).as(r.out()).isZero();
            assertThat(row(r.out(), "tailwatch.process.memory.rss{py}", "ps -o rss= -p " + server.pid())).startsWith("agree ");
            assertThat(row(r.out(), "tailwatch.process.memory.pss{py}", "Pss of /proc/PID/smaps (" + server.pid() + ")"))
                    .startsWith("agree ");
            assertThat(r.out()).contains("engine_processes: ok");
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aBadConfigExitsTwoNamingTheKey() throws Exception {
        Path config = dir.resolve("bad.yaml");
        Files.writeString(config, "host:\n  intervall: 5s\n");
        Run r = doctor("--config", config.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).contains("intervall");
    }
}
