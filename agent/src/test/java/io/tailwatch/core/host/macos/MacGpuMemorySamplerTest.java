package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrValues.GpuMemoryState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MacGpuMemorySamplerTest {
    static final Path FIXTURE = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "macos-ioaccelerator", "ioreg-m3-max.txt");
    static final long GIB = 1L << 30;

    static List<Map<String, Long>> fixture() throws IOException {
        return AcceleratorStatistics.parseIoreg(Files.readString(FIXTURE));
    }

    static Double value(List<Point> points, io.tailwatch.metrics.MetricDef metric, GpuMemoryState state) {
        return points.stream().filter(p -> p.metric() == metric
                        && (state == null || state.value().equals(p.attributes().get(state.key()))))
                .map(Point::value).findFirst().orElse(null);
    }

    @Test
    void the_ioreg_dictionary_gives_in_use_and_allocated_and_skips_the_legend_and_the_driver_key() throws Exception {
        List<Map<String, Long>> d = fixture();
        assertThat(d).hasSize(1);
        assertThat(d.get(0)).containsEntry("In use system memory", 44 * GIB)
                .containsEntry("Alloc system memory", 50 * GIB)
                .containsEntry("In use system memory (driver)", 0L)
                .containsEntry("Device Utilization %", 63L);
        AcceleratorStatistics s = AcceleratorStatistics.of(d);
        assertThat(s.inUseBytes()).isEqualTo(47_244_640_256L);
        assertThat(s.allocatedBytes()).isEqualTo(53_687_091_200L);
    }

    @Test
    void the_sampler_exports_both_states_and_leaves_out_a_wired_limit_of_zero() throws Exception {
        FakeMacSystem sys = FakeMacSystem.m1Pro();
        sys.longs.put(MacGpuMemorySampler.WIRED_LIMIT_SYSCTL, 0L);
        List<Map<String, Long>> d = fixture();
        MacGpuMemorySampler s = new MacGpuMemorySampler(Lazy.of("fixture", () -> () -> d), Lazy.of("sys", () -> sys));
        List<Point> points = s.sample();
        assertThat(value(points, HostMetrics.GPU_MEMORY_USAGE, GpuMemoryState.IN_USE)).isEqualTo(44.0 * GIB);
        assertThat(value(points, HostMetrics.GPU_MEMORY_USAGE, GpuMemoryState.ALLOCATED)).isEqualTo(50.0 * GIB);
        assertThat(value(points, HostMetrics.GPU_WIRED_LIMIT, null)).isNull();
        assertThat(points).hasSize(2);
    }

    @Test
    void a_raised_wired_limit_is_exported_in_bytes() throws Exception {
        FakeMacSystem sys = FakeMacSystem.m1Pro();
        // sudo sysctl iogpu.wired_limit_mb=120000 on a 128 GiB Mac: 120000 x 2^20 = 125,829,120,000 bytes
        sys.longs.put(MacGpuMemorySampler.WIRED_LIMIT_SYSCTL, 120_000L);
        MacGpuMemorySampler s = new MacGpuMemorySampler(Lazy.of("fixture", () -> List::of), Lazy.of("sys", () -> sys));
        List<Point> points = s.sample();
        assertThat(value(points, HostMetrics.GPU_WIRED_LIMIT, null)).isEqualTo(125_829_120_000.0);
        // no accelerator reports the figures: absent, not zero
        assertThat(value(points, HostMetrics.GPU_MEMORY_USAGE, null)).isNull();
    }

    @Test
    void a_macos_without_the_sysctl_exports_no_wired_limit_and_a_negative_figure_fails_the_sampler() throws Exception {
        FakeMacSystem sys = FakeMacSystem.m1Pro();
        List<Map<String, Long>> d = fixture();
        assertThat(new MacGpuMemorySampler(Lazy.of("fixture", () -> () -> d), Lazy.of("sys", () -> sys)).sample())
                .noneMatch(p -> p.metric() == HostMetrics.GPU_WIRED_LIMIT);
        List<Map<String, Long>> bad = List.of(Map.of("In use system memory", -1L));
        assertThatThrownBy(() -> new MacGpuMemorySampler(Lazy.of("fixture", () -> () -> bad), Lazy.of("sys", () -> sys)).sample())
                .hasMessageContaining("negative");
        List<Map<String, Long>> huge = List.of(Map.of("In use system memory", Long.MAX_VALUE), Map.of("In use system memory", 1L));
        assertThatThrownBy(() -> new MacGpuMemorySampler(Lazy.of("fixture", () -> () -> huge), Lazy.of("sys", () -> sys)).sample())
                .isInstanceOf(java.io.IOException.class).hasMessageContaining("In use system memory").hasMessageContaining("2^63");
    }

    @Test
    void the_limit_comes_from_metal_and_metal_failing_fails_only_that_sampler() throws Exception {
        // 107.52 GiB, what a 128 GiB M5 Max reports
        MetalWorkingSet stub = () -> 115_448_720_916L;
        List<Point> points = new MacGpuLimitSampler(Lazy.of("stub", () -> stub)).sample();
        assertThat(points).singleElement().satisfies(p -> {
            assertThat(p.metric()).isEqualTo(HostMetrics.GPU_MEMORY_LIMIT);
            assertThat(p.value()).isEqualTo(115_448_720_916.0);
        });
        MacGpuLimitSampler broken = new MacGpuLimitSampler(Lazy.of("Metal", () -> {
            throw new IOException("MTLCreateSystemDefaultDevice returned no device");
        }));
        assertThatThrownBy(broken::sample).hasMessageContaining("Metal unavailable");
    }
}
