package io.tailwatch.core.host.linux;

import static io.tailwatch.core.host.Engines.engine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.ProcessTable;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.MemorySource;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LinuxProcessTable and the engine-process sampler on procfs fixture trees. */
class LinuxProcessTableTest {
    @TempDir
    Path proc;

    private static final String TCP_HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

    private void process(int pid, int ppid, String comm, String cmdline, long rssKb, long... socketInodes) throws IOException {
        Path d = Files.createDirectories(proc.resolve(Integer.toString(pid)));
        Files.writeString(d.resolve("stat"), pid + " (" + comm + ") S " + ppid + " " + pid + " " + pid + " 0 -1 4194560 0 0\n");
        Files.write(d.resolve("cmdline"), cmdline.replace(' ', '\0').concat("\0").getBytes(StandardCharsets.UTF_8));
        Files.writeString(d.resolve("status"), "Name:\t" + comm + "\nVmPeak:\t 999 kB\nVmRSS:\t  " + rssKb + " kB\nThreads:\t4\n");
        Path fd = Files.createDirectories(d.resolve("fd"));
        Files.createSymbolicLink(fd.resolve("0"), Path.of("/dev/null"));
        int n = 3;
        for (long inode : socketInodes) {
            Files.createSymbolicLink(fd.resolve(Integer.toString(n++)), Path.of("socket:[" + inode + "]"));
        }
    }

    private void tables() throws IOException {
        Files.createDirectories(proc.resolve("net"));
        // 127.0.0.1:8080 LISTEN inode 5001; 0.0.0.0:11434 LISTEN inode 5002; an established socket on 8080 (inode 5003).
        Files.writeString(proc.resolve("net/tcp"), TCP_HEADER
                + "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5001 1 0000000000000000 100 0 0 10 0\n"
                + "   1: 00000000:2CAA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5002 1 0000000000000000 100 0 0 10 0\n"
                + "   2: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000  1000        0 5003 1 0000000000000000 20 4 30 10 -1\n");
        // [::1]:9090 LISTEN inode 5004
        Files.writeString(proc.resolve("net/tcp6"), TCP_HEADER
                + "   0: 00000000000000000000000001000000:2382 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5004 1 0000000000000000 100 0 0 10 0\n");
    }

    @Test
    void listeningSocketsAreTracedToTheirProcesses() throws IOException {
        tables();
        process(100, 1, "python3", "python3 -m mlx_lm.server --port 8080", 2048, 5001);
        process(101, 1, "curl", "curl http://127.0.0.1:8080", 512, 5003);
        process(200, 1, "ollama", "/usr/bin/ollama serve", 4096, 5002);
        process(300, 1, "vllm", "vllm serve", 1024, 5004);
        LinuxProcessTable t = new LinuxProcessTable(proc);
        Map<Integer, Set<Integer>> l = t.listening(Set.of(8080, 11434, 9090, 7777));
        assertThat(l.get(8080)).containsExactly(100);
        assertThat(l.get(11434)).containsExactly(200);
        assertThat(l.get(9090)).containsExactly(300);
        assertThat(l).doesNotContainKey(7777);
        assertThat(t.memory(100)).isEqualTo(new ProcessTable.ProcessMemory(2048L * 1024, null));
        assertThat(t.memory(999)).isNull();
        ProcessTable.ProcessInfo p = t.processes().stream().filter(x -> x.pid() == 100).findFirst().orElseThrow();
        assertThat(p.name()).isEqualTo("python3");
        assertThat(p.ppid()).isEqualTo(1);
        assertThat(p.args()).containsExactly("python3", "-m", "mlx_lm.server", "--port", "8080");
    }

    /** smaps_rollup as kernel 6.1 prints it (fs/proc/task_mmu.c: the rollup line, then the summed fields). */
    private static final String ROLLUP = "55d0c8a4e000-7ffd3b5f2000 ---p 00000000 00:00 0                          [rollup]\n"
            + "Rss:              508984 kB\n"
            + "Pss:              278704 kB\n"
            + "Pss_Dirty:        262300 kB\n"
            + "Pss_Anon:         262144 kB\n"
            + "Pss_File:          16560 kB\n"
            + "Pss_Shmem:             0 kB\n"
            + "Shared_Clean:      12000 kB\n"
            + "Shared_Dirty:     462400 kB\n"
            + "Private_Clean:      4312 kB\n"
            + "Private_Dirty:     30272 kB\n"
            + "Referenced:       508984 kB\n"
            + "Anonymous:        492688 kB\n"
            + "Swap:                  0 kB\n"
            + "SwapPss:               0 kB\n"
            + "Locked:                0 kB\n";

    @Test
    void pssComesFromSmapsRollupAndIsNullWhereItCannotBeRead() throws IOException {
        process(100, 1, "python3", "python3 serve.py", 508984);
        process(101, 100, "python3", "python3 serve.py", 497000);
        Files.writeString(proc.resolve("100/smaps_rollup"), ROLLUP);
        LinuxProcessTable t = new LinuxProcessTable(proc);
        assertThat(t.hasProportionalSets()).isTrue();
        // 278704 kB (the Pss line, not Pss_Dirty or SwapPss) x 1024.
        assertThat(t.memory(100)).isEqualTo(new ProcessTable.ProcessMemory(508984L * 1024, null, 285392896L));
        assertThat(t.memory(101).pss()).isNull();
        assertThat(t.memory(101).rss()).isEqualTo(497000L * 1024);
    }

    @Test
    void pssIsReadAtMostEveryThirtySecondsPerProcessAndRssEveryTime() throws IOException {
        process(100, 1, "python3", "python3 serve.py", 1000);
        Files.writeString(proc.resolve("100/smaps_rollup"), "Pss: 500 kB\n");
        long[] now = {0};
        LinuxProcessTable t = new LinuxProcessTable(proc, () -> now[0]);
        assertThat(t.memory(100).pss()).isEqualTo(500L * 1024);
        Files.writeString(proc.resolve("100/smaps_rollup"), "Pss: 700 kB\n");
        Files.writeString(proc.resolve("100/status"), "VmRSS:\t 1200 kB\n");
        now[0] = LinuxProcessTable.PSS_MAX_AGE_NANOS - 1;
        assertThat(t.memory(100)).isEqualTo(new ProcessTable.ProcessMemory(1200L * 1024, null, 500L * 1024));
        now[0] = LinuxProcessTable.PSS_MAX_AGE_NANOS;
        assertThat(t.memory(100).pss()).isEqualTo(700L * 1024);
    }

    @Test
    void aBrokenOrOversizedPssFileIsAnErrorNamingTheFileAndLeavesPssUnknownNotTheProcess() throws IOException {
        process(100, 1, "python3", "python3 serve.py", 10);
        Files.writeString(proc.resolve("100/smaps_rollup"), "Rss: 10 kB\nPss: many kB\n");
        assertThatThrownBy(() -> LinuxProcessTable.pss(proc.resolve("100/smaps_rollup"))).isInstanceOf(IOException.class)
                .hasMessageContaining("100/smaps_rollup").hasMessageContaining("Pss: many kB");
        // The process keeps its RSS, and its PSS is unknown (RSS stands in, labelled so).
        assertThat(new LinuxProcessTable(proc).memory(100)).satisfies(m -> {
            assertThat(m.rss()).isEqualTo(10L * 1024);
            assertThat(m.pss()).isNull();
        });
        Files.writeString(proc.resolve("100/smaps_rollup"), "Pss: 1 kB\n".repeat(2000));
        assertThatThrownBy(() -> LinuxProcessTable.pss(proc.resolve("100/smaps_rollup"))).hasMessageContaining("larger than");
        assertThat(new LinuxProcessTable(proc).memory(100).pss()).isNull();
    }

    @Test
    void anEngineIsSummedByPssWhenEveryProcessHasItAndByLabelledRssWhenOneDoesNot() throws Exception {
        process(100, 1, "python3", "python3 serve.py", 400000);
        process(101, 100, "python3", "python3 serve.py", 300000);
        Files.writeString(proc.resolve("100/smaps_rollup"), "Rss: 400000 kB\nPss: 250000 kB\n");
        Files.writeString(proc.resolve("101/smaps_rollup"), "Rss: 300000 kB\nPss: 150000 kB\n");
        long[] now = {0};
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("py", "http://10.0.0.1:8000", "serve.py")),
                Lazy.of("procfs", () -> new LinuxProcessTable(proc, () -> now[0])), 12);
        Point pss = s.sample().stream().filter(p -> p.metric() == HostMetrics.PROCESS_PSS).findFirst().orElseThrow();
        assertThat(pss.value()).isEqualTo((250000 + 150000) * 1024.0);
        assertThat(pss.attributes()).containsEntry(AttrKeys.MEMORY_SOURCE, "pss");
        Files.delete(proc.resolve("101/smaps_rollup"));
        now[0] = LinuxProcessTable.PSS_MAX_AGE_NANOS;
        pss = s.sample().stream().filter(p -> p.metric() == HostMetrics.PROCESS_PSS).findFirst().orElseThrow();
        assertThat(pss.value()).isEqualTo((400000 + 300000) * 1024.0);
        assertThat(pss.attributes()).containsEntry(AttrKeys.MEMORY_SOURCE, "rss");
    }

    @Test
    void oneEnginesUnreadableProcessCostsOnlyThatEngineItsSeries() throws Exception {
        process(100, 1, "python3", "python3 serve.py", 2048);
        process(200, 1, "python3", "python3 other.py", 4096);
        // A broken PSS file is unknown PSS: RSS stands in, labelled.
        Files.writeString(proc.resolve("200/smaps_rollup"), "Pss: many kB\n");
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("a", "http://10.0.0.1:8000", "serve.py"),
                engine("b", "http://10.0.0.1:8001", "other.py")), Lazy.of("procfs", () -> new LinuxProcessTable(proc)), 12);
        assertThat(s.sample()).contains(
                Point.of(HostMetrics.PROCESS_RSS, 2048 * 1024.0, AttrKeys.ENGINE, "a"),
                Point.of(HostMetrics.PROCESS_PSS, 4096 * 1024.0, MemorySource.RSS, AttrKeys.ENGINE, "b"));
        // A status file that cannot be parsed costs that engine its series, not its sibling.
        Files.writeString(proc.resolve("200/status"), "Name:\tpython3\nVmRSS:\t lots kB\n");
        List<Point> points = s.sample();
        assertThat(points).contains(Point.of(HostMetrics.PROCESS_RSS, 2048 * 1024.0, AttrKeys.ENGINE, "a"));
        assertThat(points).noneMatch(p -> "b".equals(p.attributes().get(AttrKeys.ENGINE)));
        // When every engine's read fails, the sample fails, naming the file.
        Files.writeString(proc.resolve("100/status"), "Name:\tpython3\nVmRSS:\t x kB\n");
        assertThatThrownBy(s::sample).isInstanceOf(IOException.class).hasMessageContaining("/status");
    }

    @Test
    void processNamesWithSpacesAndParenthesesAreParsed() throws IOException {
        process(7, 3, "Web Content (x)", "firefox", 10);
        ProcessTable.ProcessInfo p = new LinuxProcessTable(proc).processes().get(0);
        assertThat(p.name()).isEqualTo("Web Content (x)");
        assertThat(p.ppid()).isEqualTo(3);
    }

    @Test
    void aBrokenTcpTableNamesFileAndLine() throws IOException {
        Files.createDirectories(proc.resolve("net"));
        Files.writeString(proc.resolve("net/tcp"), TCP_HEADER + "   0: 0100007F:ZZZZ 00000000:0000 0A 0 0 0 0 0 0 5001\n");
        assertThatThrownBy(() -> new LinuxProcessTable(proc).listening(Set.of(8080)))
                .hasMessageContaining("net/tcp line 2");
    }

    @Test
    void samplerSumsEngineAndChildrenAndExportsNoFootprintOnLinux() throws Exception {
        tables();
        process(200, 1, "ollama", "/usr/bin/ollama serve", 4096, 5002);
        process(201, 200, "ollama", "/usr/bin/ollama runner --model x", 100_000);
        process(100, 1, "python3", "python3 -m mlx_lm.server", 2048);
        process(500, 1, "bash", "bash", 3000);
        EngineProcessSampler s = new EngineProcessSampler(List.of(
                engine("ollama", "http://127.0.0.1:11434", "ollama"),
                engine("mlx", "http://127.0.0.1:8081", "mlx_lm"),
                engine("llama", "http://127.0.0.1:8082", "llama-server")),
                Lazy.of("procfs", () -> new LinuxProcessTable(proc)), 12);
        List<Point> points = s.sample();
        assertThat(points).containsExactlyInAnyOrder(
                Point.of(HostMetrics.PROCESS_RSS, (4096 + 100_000) * 1024.0, AttrKeys.ENGINE, "ollama"),
                Point.of(HostMetrics.PROCESS_RSS, 2048 * 1024.0, AttrKeys.ENGINE, "mlx"),
                // No smaps_rollup in this tree: the RSS sums stand in, labelled.
                Point.of(HostMetrics.PROCESS_PSS, (4096 + 100_000) * 1024.0, MemorySource.RSS, AttrKeys.ENGINE, "ollama"),
                Point.of(HostMetrics.PROCESS_PSS, 2048 * 1024.0, MemorySource.RSS, AttrKeys.ENGINE, "mlx"));
        assertThat(points).noneMatch(p -> p.metric() == HostMetrics.PROCESS_FOOTPRINT);

        // The runner exits: the next run reads what is left and looks the processes up again after.
        Files.walk(proc.resolve("201")).sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        assertThat(s.sample()).contains(Point.of(HostMetrics.PROCESS_RSS, 4096 * 1024.0, AttrKeys.ENGINE, "ollama"));
        assertThat(s.sample()).contains(Point.of(HostMetrics.PROCESS_RSS, 4096 * 1024.0, AttrKeys.ENGINE, "ollama"));
        assertThat(s.pidsOf("ollama")).containsExactly(200);
    }

    @Test
    void hugeCommandLinesAreReadOnlyAsFarAsMatchingNeeds() throws IOException {
        // Nine processes with about 2 MB of arguments each, and the engine among them.
        String big = "x".repeat(64 * 1024);
        StringBuilder huge = new StringBuilder("/usr/bin/sleep");
        for (int i = 0; i < 32; i++) {
            huge.append(' ').append(big);
        }
        for (int pid = 10; pid < 19; pid++) {
            process(pid, 1, "sleep", huge.toString(), 100);
        }
        process(100, 1, "python3", "python3 -m mlx_lm.server --port 8080", 2048);
        LinuxProcessTable t = new LinuxProcessTable(proc);
        List<ProcessTable.ProcessInfo> all = t.processes();
        assertThat(all).hasSize(10);
        for (ProcessTable.ProcessInfo p : all) {
            int bytes = p.args().stream().mapToInt(a -> a.length() + 1).sum();
            assertThat(bytes).as("pid " + p.pid()).isLessThanOrEqualTo(ProcessTable.MAX_ARG_BYTES + 1);
            assertThat(p.args().size()).isLessThanOrEqualTo(ProcessTable.MAX_ARGS);
        }
        assertThat(t.lastCycleBytes()).isLessThanOrEqualTo(10L * ProcessTable.MAX_ARG_BYTES);
        ProcessTable.ProcessInfo engine = all.stream().filter(x -> x.pid() == 100).findFirst().orElseThrow();
        assertThat(io.tailwatch.core.host.EngineProcesses.matches(engine, List.of("mlx_lm"))).isTrue();
    }

    @Test
    void theBytesReadInOneCycleAreBounded() throws IOException {
        String arg = "y".repeat(ProcessTable.MAX_ARG_BYTES);
        int n = (int) (ProcessTable.MAX_ARG_BYTES_PER_CYCLE / ProcessTable.MAX_ARG_BYTES) + 20;
        for (int pid = 1000; pid < 1000 + n; pid++) {
            process(pid, 1, "worker", "/usr/bin/worker " + arg, 100);
        }
        LinuxProcessTable t = new LinuxProcessTable(proc);
        List<ProcessTable.ProcessInfo> all = t.processes();
        assertThat(all).hasSize(n);
        assertThat(t.lastCycleBytes()).isEqualTo(ProcessTable.MAX_ARG_BYTES_PER_CYCLE);
        // Past the budget a process keeps its name (what matching reads first) without arguments.
        assertThat(all.stream().filter(p -> p.args().isEmpty()).count()).isGreaterThanOrEqualTo(20);
        assertThat(all).allSatisfy(p -> assertThat(p.name()).isEqualTo("worker"));
    }

    /** The budget never cuts a short line inside an argument: a process's line is read whole, or not at all. */
    @Test
    void aCommandLineIsReadWholeOrNotAtAllWhenTheCyclesBudgetRunsOut() throws IOException {
        String arg = "z".repeat(3_000); // 3,017 bytes a line: the budget runs out partway through one
        int n = (int) (ProcessTable.MAX_ARG_BYTES_PER_CYCLE / 3_000) + 5;
        for (int pid = 2000; pid < 2000 + n; pid++) {
            process(pid, 1, "worker", "/usr/bin/worker " + arg, 100);
        }
        List<ProcessTable.ProcessInfo> all = new LinuxProcessTable(proc).processes();
        assertThat(all).hasSize(n);
        assertThat(all).allSatisfy(p -> assertThat(p.args().isEmpty() || p.args().equals(List.of("/usr/bin/worker", arg)))
                .as(p.args().isEmpty() ? "" : p.args().get(p.args().size() - 1).length() + " bytes of the last argument").isTrue());
        assertThat(all.stream().filter(p -> !p.args().isEmpty()).count())
                .as("read while a whole line's bound is left").isEqualTo(
                        (ProcessTable.MAX_ARG_BYTES_PER_CYCLE - ProcessTable.MAX_ARG_BYTES) / ("/usr/bin/worker " + arg + "\0\0").length() + 1);
    }

    /**
     * A socket table of 200,000 connections (about 30 MB, as a host under a load test has in TIME_WAIT) is read a
     * line at a time: a JVM with an 8 MiB heap finds the one listening socket at its end. Read whole, once per
     * engine, such a table ran the agent's heap out.
     */
    @Test
    void aSocketTableOfManyConnectionsIsReadALineAtATime() throws Exception {
        process(300, 1, "llama-server", "/usr/bin/llama-server --port 8080", 100, 777_001);
        Files.createDirectories(proc.resolve("net"));
        try (java.io.BufferedWriter w = Files.newBufferedWriter(proc.resolve("net/tcp6"))) {
            w.write(TCP_HEADER);
            for (int i = 0; i < 200_000; i++) {
                w.write(String.format("%6d: 0000000000000000FFFF00000100007F:%04X 0000000000000000FFFF00000100007F:1F90 06 "
                        + "00000000:00000000 03:00000ABC 00000000     0        0 0 3 0000000000000000%n", i, 20_000 + i % 40_000));
            }
            w.write("200000: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 "
                    + "00:00000000 00000000  1000        0 777001 1 0000000000000000 100 0 0 10 0\n");
        }
        Files.writeString(proc.resolve("net/tcp"), TCP_HEADER);
        assertThat(Files.size(proc.resolve("net/tcp6"))).isGreaterThan(25L << 20);
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx8m",
                "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"),
                ListeningInSmallHeap.class.getName(), proc.toString(), "8080");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("listening=[300]");
    }
}
