package io.tailwatch.core.host.linux;

import static io.tailwatch.core.host.Engines.engine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The Linux engine-process path against a real child process serving HTTP on a loopback port. */
@EnabledOnOs(OS.LINUX)
class EngineProcessSamplerLiveTest {
    private Process server;
    private int port;

    @BeforeEach
    void startServer() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        server = new ProcessBuilder("python3", "-m", "http.server", "--bind", "127.0.0.1", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    @AfterEach
    void stopServer() throws Exception {
        server.destroy();
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
            server.destroyForcibly();
        }
    }

    private long vmRss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS");
    }

    @Test
    void findsTheServerByItsListeningPortAndReportsItsRss() throws Exception {
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("py", "http://127.0.0.1:" + port)),
                Lazy.of("procfs", () -> new LinuxProcessTable(Path.of("/proc"))), 12);
        List<Point> points = s.sample();
        assertThat(s.pidsOf("py")).contains((int) server.pid());
        Point rss = points.stream().filter(p -> p.metric() == HostMetrics.PROCESS_RSS).findFirst().orElseThrow();
        assertThat(rss.attributes()).containsEntry(AttrKeys.ENGINE, "py");
        long expected = vmRss(server.pid());
        // Same source read moments apart: within 10 % (the interpreter may still be settling).
        assertThat(rss.value()).isBetween(expected * 0.9, expected * 1.1);
        assertThat(rss.value()).isGreaterThan(1024 * 1024);
        assertThat(points).noneMatch(p -> p.metric() == HostMetrics.PROCESS_FOOTPRINT);
    }

    @Test
    void findsTheServerByModuleNameWhenNothingListensOnTheConfiguredPort() throws Exception {
        int unused;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            unused = s.getLocalPort();
        }
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("py", "http://127.0.0.1:" + unused, "http.server")),
                Lazy.of("procfs", () -> new LinuxProcessTable(Path.of("/proc"))), 12);
        assertThat(s.sample()).anyMatch(p -> p.metric() == HostMetrics.PROCESS_RSS && p.value() > 0);
        assertThat(s.pidsOf("py")).contains((int) server.pid());
    }

    /** The kernel's own PSS of a process: the Pss line of its smaps_rollup, read here independently. */
    private static long rollupPss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"))) {
            if (line.startsWith("Pss:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no Pss");
    }

    /**
     * A parent that fills 64 MiB and forks: parent and child share those pages copy-on-write, so the RSS
     * sum counts them twice and the PSS sum once.
     */
    @Test
    void aForkedParentAndChildAreSummedByPssNotTwiceByRss() throws Exception {
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
        String script = String.join("\n",
                "import os, socket, sys, time",
                "block = b'x' * (64 << 20)",
                "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)",
                "child = os.fork()",
                "if child == 0:",
                "    time.sleep(120); os._exit(0)",
                "print(s.getsockname()[1], child, flush=True)",
                "sys.stdin.read()",
                "os.kill(child, 9)");
        server = new ProcessBuilder("python3", "-c", script).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String[] ready = new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream())).readLine().split(" ");
        int forkedPort = Integer.parseInt(ready[0]);
        long child = Long.parseLong(ready[1]);
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("forked", "http://127.0.0.1:" + forkedPort)),
                Lazy.of("procfs", () -> new LinuxProcessTable(Path.of("/proc"))), 12);
        List<Point> points = s.sample();
        assertThat(s.pidsOf("forked")).containsExactlyInAnyOrder((int) server.pid(), (int) child);
        double rss = points.stream().filter(p -> p.metric() == HostMetrics.PROCESS_RSS).findFirst().orElseThrow().value();
        Point pss = points.stream().filter(p -> p.metric() == HostMetrics.PROCESS_PSS).findFirst().orElseThrow();
        long kernelPss = rollupPss(server.pid()) + rollupPss(child);
        assertThat(pss.attributes()).containsEntry(AttrKeys.MEMORY_SOURCE, "pss").containsEntry(AttrKeys.ENGINE, "forked");
        // The shared 64 MiB counts once: the PSS sum is well under the RSS sum, and at least the block itself.
        assertThat(pss.value()).isLessThan(rss * 0.75).isGreaterThan(64.0 * (1 << 20));
        // The kernel's own figures, read moments later (shared libraries' shares move as other processes come and go).
        assertThat(pss.value()).isCloseTo(kernelPss, org.assertj.core.data.Offset.offset(1024.0 * 1024));
    }

    @Test
    void anEngineThatIsNotRunningExportsNothing() throws Exception {
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("py", "http://127.0.0.1:" + port, "no-such-engine")),
                Lazy.of("procfs", () -> new LinuxProcessTable(Path.of("/proc"))), 12);
        assertThat(s.sample()).isEmpty();
    }
}
