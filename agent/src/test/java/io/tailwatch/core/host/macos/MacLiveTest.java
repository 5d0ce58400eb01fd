package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.Engines;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.tools.doctor.Doctor;
import io.tailwatch.tools.doctor.DoctorReport;
import io.tailwatch.tools.doctor.ToolRunner;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The whole native path on a real Mac: run with {@code mvn -pl agent -am test -Dtest=MacLiveTest}.
 * Apple Silicon only (IOReport energy, no CPU_Speed_Limit); skipped everywhere else.
 */
@EnabledOnOs(OS.MAC)
@EnabledIfSystemProperty(named = "os.arch", matches = "aarch64|arm64")
class MacLiveTest {

    private static Config config() throws Exception {
        return Config.defaults(Map.of());
    }

    @Test
    void everySignalIsReadAndWithinItsInvariants() throws Exception {
        try (HostSampling h = new HostSampling(HostSources.forThisHost(config()), Duration.ofSeconds(5),
                Duration.ofSeconds(2), new MetricHub(), Clock.systemUTC())) {
            HostSnapshot first = h.sampleOnce();
            for (String sampler : List.of("memory", "swap", "pressure", "thermal", "cpu_speed_limit", "cpu", "power", "gpu",
                    "engine_processes")) {
                assertThat(first.results().get(sampler).success()).as(sampler + ": " + first.results().get(sampler).error())
                        .isTrue();
            }
            HostSnapshot s = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250))
                    .until(h::sampleOnce, x -> x.power("cpu") != null);
            assertThat(s.memoryUsed()).isBetween(1.0, s.memoryTotal());
            assertThat(s.memoryAvailable()).isBetween(0.0, s.memoryTotal());
            assertThat(s.swapUsed()).isLessThanOrEqualTo(s.swapTotal());
            assertThat(s.pressureLevel()).isIn(0.0, 1.0, 2.0);
            assertThat(s.thermalLevel()).isIn(0.0, 1.0, 2.0, 3.0, 4.0);
            assertThat(s.value(HostMetrics.MEMORY_FREE_RATIO)).isBetween(0.0, 1.0);
            assertThat(s.cpuSpeedLimit()).as("Apple Silicon records no CPU_Speed_Limit").isNull();
            double sum = 0;
            for (Point p : s.points()) {
                if (p.metric() == HostMetrics.POWER) {
                    assertThat(p.value()).isGreaterThanOrEqualTo(0.0).isLessThan(1000.0);
                    sum += p.value();
                }
            }
            assertThat(sum).isGreaterThan(0.0).isLessThan(1000.0);
            assertThat(s.value(HostMetrics.GPU_UTILIZATION)).isBetween(0.0, 1.0);
            double cpu = s.points().stream().filter(p -> p.metric() == HostMetrics.CPU_UTILIZATION)
                    .mapToDouble(Point::value).sum();
            assertThat(cpu).as("cpu modes add up to 1").isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-9));
            // Apple silicon: every cluster from hw.perflevel* is there.
            assertThat(s.points().stream().filter(p -> p.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION)
                    .map(p -> p.attributes().get("tailwatch.cpu.cluster")).distinct().count())
                    .isEqualTo(Long.parseLong(ToolRunner.system(Duration.ofSeconds(10))
                            .run(List.of("sysctl", "-n", "hw.nperflevels")).strip()));
        }
    }

    @Test
    void smcAndBatteryAreReadWithoutSudoWithinTheirInvariants() throws Exception {
        try (HostSampling h = new HostSampling(HostSources.forThisHost(config()), Duration.ofSeconds(5),
                Duration.ofSeconds(2), new MetricHub(), Clock.systemUTC())) {
            HostSnapshot s = h.sampleOnce();
            for (String sampler : List.of("system-power", "fans", "temperature", "battery")) {
                assertThat(s.results().get(sampler).success()).as(sampler + ": " + s.results().get(sampler).error()).isTrue();
            }
            // Every Apple silicon SMC has PSTR (the whole machine's draw); it is no IOReport rail, so it is there on macOS 27 too.
            assertThat(s.value(HostMetrics.HOST_POWER)).isNotNull().isBetween(0.1, 1000.0);
            for (Point p : s.points()) {
                if (p.metric() == HostMetrics.THERMAL_TEMPERATURE) {
                    assertThat(p.value()).as(p.attributes().toString()).isGreaterThan(0.0).isLessThanOrEqualTo(150.0);
                }
                if (p.metric() == HostMetrics.FAN_SPEED || p.metric() == HostMetrics.FAN_SPEED_LIMIT) {
                    assertThat(p.value()).as(p.attributes().toString()).isBetween(0.0, 100_000.0);
                }
                if (p.metric() == HostMetrics.BATTERY_CHARGE) {
                    assertThat(p.value()).isBetween(0.0, 1.0);
                }
            }
        }
    }

    @Test
    void doctorAgreesWithTheSystemTools() throws Exception {
        DoctorReport r = Doctor.run(config(), ToolRunner.system(Duration.ofSeconds(10)));
        assertThat(r.failed()).as(r.render()).isFalse();
    }

    @Test
    void structReadingsMatchTheToolText() throws Exception {
        MacSystem sys = MacNativeSystem.open();
        ToolRunner tools = ToolRunner.system(Duration.ofSeconds(10));
        assertThat(sys.sysctlLong("hw.memsize")).isEqualTo(Long.parseLong(tools.run(List.of("sysctl", "-n", "hw.memsize")).strip()));
        MacToolText.VmStat vm = MacToolText.vmStat(tools.run(List.of("vm_stat")));
        assertThat(sys.pageSize()).isEqualTo(vm.pageSize());
        XswUsage x = XswUsage.decode(sys.sysctlStruct("vm.swapusage", XswUsage.SIZE));
        MacToolText.SwapUsage text = MacToolText.swapUsage(tools.run(List.of("sysctl", "vm.swapusage")));
        assertThat((double) x.total()).isCloseTo(text.total(), org.assertj.core.api.Assertions.within(1024.0 * 1024));
        assertThat(MacSources.resourceAttributes().get("host.cpu.model")).startsWith("Apple");
        assertThat(MacSources.resourceAttributes()).containsKeys("host.model", "os.version");
    }

    @Test
    void findsAnEngineByItsListeningPortAndReadsItsFootprint() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process server = new ProcessBuilder("python3", "-m", "http.server", "--bind", "127.0.0.1", Integer.toString(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            int p = port;
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                try (Socket c = new Socket(InetAddress.getLoopbackAddress(), p)) {
                    return true;
                } catch (IOException e) {
                    return false;
                }
            });
            EngineProcessSampler s = new EngineProcessSampler(List.of(Engines.engine("py", "http://127.0.0.1:" + port)),
                    Lazy.of("libproc", MacNativeProcessTable::open), 12);
            List<Point> points = s.sample();
            assertThat(s.pidsOf("py")).contains((int) server.pid());
            assertThat(points).anyMatch(x -> x.metric() == HostMetrics.PROCESS_FOOTPRINT && x.value() > 1024 * 1024);
            assertThat(points).anyMatch(x -> x.metric() == HostMetrics.PROCESS_RSS && x.value() > 1024 * 1024);
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
