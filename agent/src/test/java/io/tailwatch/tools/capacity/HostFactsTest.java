package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostFactsTest {
    @TempDir
    Path dir;

    @Test
    void cpu_model_and_os_name_from_their_files() throws Exception {
        Path cpuinfo = dir.resolve("cpuinfo");
        Files.writeString(cpuinfo, """
                processor\t: 0
                vendor_id\t: GenuineIntel
                model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz
                """);
        assertThat(HostFacts.cpuModel(cpuinfo)).isEqualTo("Intel(R) Xeon(R) CPU @ 2.20GHz");
        Path arm = dir.resolve("cpuinfo-arm");
        Files.writeString(arm, "processor\t: 0\nBogoMIPS\t: 48.00\nModel\t\t: Raspberry Pi 5 Model B Rev 1.0\n");
        assertThat(HostFacts.cpuModel(arm)).isEqualTo("Raspberry Pi 5 Model B Rev 1.0");
        assertThat(HostFacts.cpuModel(dir.resolve("missing"))).isNull();

        Path osRelease = dir.resolve("os-release");
        Files.writeString(osRelease, "NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nID=ubuntu\n");
        assertThat(HostFacts.prettyName(osRelease)).isEqualTo("Ubuntu 24.04.1 LTS");
        assertThat(HostFacts.prettyName(dir.resolve("missing"))).isNull();
    }

    @Test
    void host_power_prefers_platform_then_package_then_component_sum() {
        HostSnapshot psys = snap(HostMetrics.power("psys", 30),
                HostMetrics.power("package", 20));
        assertThat(HostFigures.hostPower(psys)).isEqualTo(30);
        HostSnapshot pkg = snap(HostMetrics.power("package", 20),
                HostMetrics.power("dram", 3));
        assertThat(HostFigures.hostPower(pkg)).isEqualTo(23);
        HostSnapshot apple = snap(HostMetrics.power("cpu", 5),
                HostMetrics.power("gpu", 40), HostMetrics.power("ane", 0.5),
                HostMetrics.power("dram", 2));
        assertThat(HostFigures.hostPower(apple)).isEqualTo(47.5);
        assertThat(HostFigures.hostPower(snap())).isNull();
    }

    @Test
    void engine_memory_is_the_footprint_then_the_pss_sum_then_the_rss_sum() {
        Point rss = Point.of(HostMetrics.PROCESS_RSS, 497e6, io.tailwatch.metrics.AttrKeys.ENGINE, "e");
        Point pss = Point.of(HostMetrics.PROCESS_PSS, 272e6, io.tailwatch.metrics.AttrValues.MemorySource.PSS,
                io.tailwatch.metrics.AttrKeys.ENGINE, "e");
        Point footprint = Point.of(HostMetrics.PROCESS_FOOTPRINT, 300e6, io.tailwatch.metrics.AttrKeys.ENGINE, "e");
        assertThat(HostFigures.of(snap(rss, pss), "e").footprintBytes()).isEqualTo(272e6);
        assertThat(HostFigures.of(snap(rss, pss, footprint), "e").footprintBytes()).isEqualTo(300e6);
        assertThat(HostFigures.of(snap(rss), "e").footprintBytes()).isEqualTo(497e6);
        assertThat(HostFigures.of(snap(rss, pss), "other").footprintBytes()).isNull();
    }

    @Test
    void preflight_refusals() {
        HostFigures calm = new HostFigures(Instant.now(), 0.0, null, null, 0.0, 0.0, 0.5, null, null);
        assertThat(Preflight.refusals(calm, false)).isEmpty();
        assertThat(Preflight.refusals(calm, true)).singleElement().asString().contains("CPU speed limited to 50 %");
        HostFigures bad = new HostFigures(Instant.now(), 0.0, null, null, 2.0, 2.0, null, null, null);
        assertThat(Preflight.refusals(bad, true)).containsExactly("memory pressure is critical", "thermal pressure is heavy");
        assertThat(Preflight.refusals(HostFigures.UNKNOWN, true)).isEmpty();
        HostFigures warm = new HostFigures(Instant.now(), 0.0, null, null, 1.0, 1.0, 0.85, null, null);
        assertThat(Preflight.refusals(warm, true)).isEmpty();
    }

    private static HostSnapshot snap(Point... points) {
        return new HostSnapshot(Instant.now(), List.of(points), Map.of());
    }
}
