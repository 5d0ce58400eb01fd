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

    @Test
    void anEngineThatIsNotRunningExportsNothing() throws Exception {
        server.destroy();
        server.waitFor(10, TimeUnit.SECONDS);
        EngineProcessSampler s = new EngineProcessSampler(List.of(engine("py", "http://127.0.0.1:" + port, "no-such-engine")),
                Lazy.of("procfs", () -> new LinuxProcessTable(Path.of("/proc"))), 12);
        assertThat(s.sample()).isEmpty();
    }
}
