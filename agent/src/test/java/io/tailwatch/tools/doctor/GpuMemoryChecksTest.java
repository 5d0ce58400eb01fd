package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrValues.GpuMemoryState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuMemoryChecksTest {
    static final double GIB = 1L << 30;
    static final Path IOREG = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "macos-ioaccelerator", "ioreg-m3-max.txt");

    static HostSnapshot mac(double limit, double inUse, Double wired) {
        List<Point> p = new java.util.ArrayList<>(List.of(Point.of(HostMetrics.MEMORY_LIMIT, 128 * GIB),
                HostMetrics.gpuMemoryLimit(limit), HostMetrics.gpuMemoryUsage(inUse, GpuMemoryState.IN_USE),
                HostMetrics.gpuMemoryUsage(50 * GIB, GpuMemoryState.ALLOCATED)));
        if (wired != null) {
            p.add(Point.of(HostMetrics.GPU_WIRED_LIMIT, wired));
        }
        return new HostSnapshot(Instant.now(), p, Map.of());
    }

    static Check find(List<Check> cs, String signal) {
        return cs.stream().filter(c -> c.signal().equals(signal)).findFirst().orElseThrow();
    }

    @Test
    void the_default_limit_and_the_ioreg_figures_agree() throws Exception {
        // the fixture: 44 GiB in use, 50 GiB allocated; the sample read 44.5 GiB a moment before (within 10 %)
        Map<List<String>, String> out = Map.of(GpuMemoryChecks.WIRED_LIMIT, "0\n", GpuMemoryChecks.IOREG, Files.readString(IOREG));
        List<Check> cs = GpuMemoryChecks.checks(mac(107.52 * GIB, 44.5 * GIB, null), out, Map.of());
        assertThat(find(cs, "tailwatch.gpu.wired_limit").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(find(cs, "hw.gpu.memory.limit").verdict()).isEqualTo(Check.Verdict.CHECKED);
        assertThat(find(cs, "hw.gpu.memory.usage{in_use}").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(find(cs, "hw.gpu.memory.usage{allocated}").verdict()).isEqualTo(Check.Verdict.AGREE);
    }

    @Test
    void a_raised_setting_the_limit_does_not_follow_is_a_disagreement() throws Exception {
        // sysctl iogpu.wired_limit_mb=120000: 117.19 GiB; Metal still reports 107.52 GiB
        Map<List<String>, String> out = Map.of(GpuMemoryChecks.WIRED_LIMIT, "120000\n", GpuMemoryChecks.IOREG, Files.readString(IOREG));
        List<Check> cs = GpuMemoryChecks.checks(mac(107.52 * GIB, 44 * GIB, 120_000 * GpuMemoryChecks.MIB), out, Map.of());
        assertThat(find(cs, "tailwatch.gpu.wired_limit").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(find(cs, "hw.gpu.memory.limit").verdict()).isEqualTo(Check.Verdict.DISAGREE);
        List<Check> follows = GpuMemoryChecks.checks(mac(120_000 * GpuMemoryChecks.MIB, 44 * GIB, 120_000 * GpuMemoryChecks.MIB),
                out, Map.of());
        assertThat(find(follows, "hw.gpu.memory.limit").verdict()).isEqualTo(Check.Verdict.AGREE);
    }

    @Test
    void a_limit_above_total_memory_is_invalid_and_a_missing_ioreg_is_not_a_failure() {
        Map<List<String>, String> out = Map.of(GpuMemoryChecks.WIRED_LIMIT, "0\n");
        List<Check> cs = GpuMemoryChecks.checks(mac(200 * GIB, 44 * GIB, null), out,
                Map.of(GpuMemoryChecks.IOREG, "ioreg: not found"));
        assertThat(find(cs, "hw.gpu.memory.limit").verdict()).isEqualTo(Check.Verdict.INVALID);
        assertThat(find(cs, "hw.gpu.memory.usage{in_use}").verdict()).isEqualTo(Check.Verdict.UNAVAILABLE);
        // the sample read 20 GiB in use while ioreg shows 44 GiB: beyond 10 %
        List<Check> far = GpuMemoryChecks.checks(mac(107.52 * GIB, 20 * GIB, null),
                Map.of(GpuMemoryChecks.IOREG, "      \"PerformanceStatistics\" = {\"In use system memory\"=47244640256}\n"), Map.of());
        assertThat(find(far, "hw.gpu.memory.usage{in_use}").verdict()).isEqualTo(Check.Verdict.DISAGREE);
    }
}
