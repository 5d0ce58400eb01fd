package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PowerExactness;
import io.tailwatch.metrics.AttrValues.RailSource;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The macOS samplers on fixture acquisition: what Linux CI can prove about them. */
class MacSamplersTest {
    private static final long PAGE = 16384;

    private static Double value(List<Point> points, io.tailwatch.metrics.MetricDef def, String... kv) {
        return value(points, def, io.tailwatch.metrics.Attrs.of(kv));
    }

    private static Double value(List<Point> points, io.tailwatch.metrics.MetricDef def, io.tailwatch.metrics.AttrValue typed) {
        return value(points, def, io.tailwatch.metrics.Attrs.of(typed));
    }

    private static Double value(List<Point> points, io.tailwatch.metrics.MetricDef def, Map<String, String> want) {
        return points.stream().filter(p -> p.metric() == def && p.attributes().entrySet().containsAll(want.entrySet()))
                .map(Point::value)
                .findFirst().orElse(null);
    }

    @Test
    void memoryStatesArePageCountsTimesPageSize() throws Exception {
        List<Point> p = new MacMemorySampler(Lazy.of("fake", FakeMacSystem::m1Pro)).sample();
        assertThat(value(p, HostMetrics.MEMORY_LIMIT)).isEqualTo(17_179_869_184.0);
        assertThat(value(p, HostMetrics.MEMORY_USAGE, MemoryState.FREE)).isEqualTo((4229 + 681) * PAGE * 1.0);
        assertThat(value(p, HostMetrics.MEMORY_PAGE_USAGE, AttrKeys.MEMORY_PAGE_STATE, "active")).isEqualTo(186123.0 * PAGE);
        assertThat(value(p, HostMetrics.MEMORY_PAGE_USAGE, AttrKeys.MEMORY_PAGE_STATE, "inactive")).isEqualTo(184925.0 * PAGE);
        assertThat(value(p, HostMetrics.MEMORY_PAGE_USAGE, AttrKeys.MEMORY_PAGE_STATE, "wired")).isEqualTo(198107.0 * PAGE);
        assertThat(value(p, HostMetrics.MEMORY_PAGE_USAGE, AttrKeys.MEMORY_PAGE_STATE, "compressed")).isEqualTo(436782.0 * PAGE);
        assertThat(value(p, HostMetrics.MEMORY_USAGE, MemoryState.CACHED)).isEqualTo(133056.0 * PAGE);
        double used = value(p, HostMetrics.MEMORY_USAGE, MemoryState.USED);
        assertThat(used).isEqualTo((238673.0 - 24 + 198107 + 436782) * PAGE);
        assertThat(used).isLessThanOrEqualTo(17_179_869_184.0);
        // Available = free list (vm_stat "Pages free" 4229, i.e. free_count 4910 minus the 681
        // speculative pages) + file-backed 133056 (which already holds the 681 speculative pages) +
        // purgeable 24 = 137309 pages; 137309 x 16384 = 2,249,670,656 bytes (worked by hand).
        // Counting speculative twice would give 137990 pages = 2,260,828,160 bytes.
        assertThat(value(p, HostMetrics.MEMORY_AVAILABLE)).isEqualTo(2_249_670_656.0);
    }

    @Test
    void impossiblePageCountsFailTheSampler() {
        FakeMacSystem s = FakeMacSystem.m1Pro();
        s.longs.put("hw.memsize", 1L << 30);
        assertThatThrownBy(() -> new MacMemorySampler(Lazy.of("fake", () -> s)).sample())
                .hasMessageContaining("hw.memsize");
    }

    @Test
    void pagingActivityIsTheSwapinAndSwapoutCountersOfTheCapture() throws Exception {
        // docs/macos.md vm_stat capture: "Swapins: 4693446." and "Swapouts: 6168528."
        List<Point> p = new MacPagingSampler(Lazy.of("fake", FakeMacSystem::m1Pro)).sample();
        assertThat(p).hasSize(2);
        assertThat(value(p, HostMetrics.PAGING_OPERATIONS, PagingDirection.IN)).isEqualTo(4693446.0);
        assertThat(value(p, HostMetrics.PAGING_OPERATIONS, PagingDirection.OUT)).isEqualTo(6168528.0);
    }

    @Test
    void swapComesFromTheStruct() throws Exception {
        List<Point> p = new MacSwapSampler(Lazy.of("fake", FakeMacSystem::m1Pro)).sample();
        assertThat(value(p, HostMetrics.PAGING_USAGE, PagingState.USED)).isEqualTo(2744.0 * (1 << 20));
        assertThat(value(p, HostMetrics.PAGING_USAGE, PagingState.FREE)).isEqualTo(1352.0 * (1 << 20));
    }

    @Test
    void pressureLevelAndFreeRatio() throws Exception {
        FakeMacSystem s = FakeMacSystem.m1Pro();
        s.longs.put("kern.memorystatus_vm_pressure_level", 4L);
        List<Point> p = new MacMemoryPressureSampler(Lazy.of("fake", () -> s)).sample();
        assertThat(value(p, HostMetrics.PRESSURE_LEVEL)).isEqualTo(2.0);
        assertThat(value(p, HostMetrics.MEMORY_FREE_RATIO)).isEqualTo(0.37);
        s.longs.remove("kern.memorystatus_level");
        assertThatThrownBy(() -> new MacMemoryPressureSampler(Lazy.of("fake", () -> s)).sample())
                .hasMessageContaining("kern.memorystatus_level");
    }

    @Test
    void thermalLevelFromTheNotifyState() throws Exception {
        assertThat(new MacThermalPressureSampler(Lazy.of("fake", () -> () -> 2L)).sample())
                .containsExactly(Point.of(HostMetrics.THERMAL_LEVEL, 2));
        assertThatThrownBy(() -> new MacThermalPressureSampler(Lazy.of("fake", () -> () -> 7L)).sample())
                .isInstanceOf(IOException.class);
    }

    @Test
    void appleSiliconRecordsNoSpeedLimitAndThatIsNotAFailure() throws Exception {
        MacCpuSpeedLimitSampler none = new MacCpuSpeedLimitSampler(Lazy.of("fake", () -> () -> null));
        for (int i = 0; i < 3; i++) {
            assertThat(none.sample()).isEmpty();
        }
        assertThat(new MacCpuSpeedLimitSampler(Lazy.of("fake", () -> () -> Map.of("CPU_Speed_Limit", 80L))).sample())
                .containsExactly(Point.of(HostMetrics.CPU_SPEED_LIMIT, 0.8));
    }

    /** Hands out scripted deltas, as the native subscription would. */
    static final class ScriptedIOReport implements IOReportSource {
        final Deque<IOReportDelta> deltas = new ArrayDeque<>();
        boolean first = true;
        boolean closed;

        @Override
        public IOReportDelta next() {
            if (first) {
                first = false;
                return null;
            }
            return deltas.poll();
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void powerStartsWithABaselineThenReportsRailsAndDrops() throws Exception {
        ScriptedIOReport io = new ScriptedIOReport();
        io.deltas.add(new IOReportDelta(0.5, List.of(
                IOReportChannel.simple(EnergyModel.GROUP, "CPU Energy", "mJ", 1500),
                IOReportChannel.simple(EnergyModel.GROUP, "GPU Energy", "mJ", 99_000_000))));
        io.deltas.add(new IOReportDelta(1.0, List.of(IOReportChannel.simple(EnergyModel.GROUP, "ISP", "mJ", 5))));
        MacPowerSampler s = new MacPowerSampler(Lazy.of("fake", () -> io));
        assertThat(s.sample()).isEmpty();
        List<Point> p = s.sample();
        assertThat(value(p, HostMetrics.POWER, AttrKeys.HW_NAME, "cpu")).isCloseTo(3.0, within(1e-9));
        assertThat(value(p, HostMetrics.POWER, AttrKeys.HW_NAME, "gpu")).isNull();
        assertThat(value(p, HostMetrics.ENERGY, AttrKeys.HW_NAME, "cpu")).isCloseTo(1.5, within(1e-9));
        assertThat(p).contains(HostMetrics.power("cpu", 3.0, RailSource.ENERGY_MODEL, PowerExactness.EXACT));
        assertThat(value(p, SelfMetrics.READINGS_DROPPED, AttrKeys.SAMPLER, "power")).isEqualTo(1.0);
        for (Point x : p) {
            if (x.metric() == HostMetrics.POWER) {
                assertThat(x.value()).isBetween(0.0, 1000.0);
            }
        }
        // A macOS update renamed every channel: the sampler fails instead of reporting 0 W.
        assertThatThrownBy(s::sample).hasMessageContaining("no known Energy Model rail");
        s.close();
        assertThat(io.closed).isTrue();
    }

    @Test
    void gpuUtilizationWithoutAFrequencyTable() throws Exception {
        ScriptedIOReport io = new ScriptedIOReport();
        io.deltas.add(new IOReportDelta(1.0, List.of(new IOReportChannel(GpuResidency.GROUP, GpuResidency.SUBGROUP,
                GpuResidency.CHANNEL, "", 0, List.of(new IOReportChannel.State("IDLE", 75), new IOReportChannel.State("P1", 25))))));
        io.deltas.add(new IOReportDelta(1.0, List.of()));
        MacGpuSampler s = new MacGpuSampler(Lazy.of("fake", () -> io), Lazy.of("table", () -> {
            throw new IOException("no pmgr");
        }));
        assertThat(s.sample()).isEmpty();
        assertThat(s.sample()).containsExactly(HostMetrics.gpuUtilization(0.25));
        assertThatThrownBy(s::sample).hasMessageContaining("GPUPH");
    }

    @Test
    void aMissingLibraryFailsOnlyItsSamplerAndIsNotReloadedEveryCycle() {
        int[] loads = {0};
        Lazy<IOReportSource> missing = Lazy.of("IOReport Energy Model", () -> {
            loads[0]++;
            throw new UnsatisfiedLinkError("dlopen(/usr/lib/libIOReport.dylib): image not found");
        });
        List<Sampler> samplers = List.of(
                new MacPowerSampler(missing),
                new MacMemorySampler(Lazy.of("fake", FakeMacSystem::m1Pro)),
                new MacCpuSpeedLimitSampler(Lazy.of("fake", () -> () -> null)));
        MetricHub hub = new MetricHub();
        try (HostSampling h = new HostSampling(samplers, Duration.ofSeconds(5), Duration.ofSeconds(2), hub, Clock.systemUTC())) {
            for (int i = 0; i < 3; i++) {
                HostSnapshot snap = h.sampleOnce();
                assertThat(snap.results().get("power").success()).as("cycle %d", i + 1).isFalse();
                assertThat(snap.results().get("power").error()).contains("IOReport Energy Model unavailable")
                        .contains("libIOReport");
                assertThat(snap.results().get("memory").success()).isTrue();
                assertThat(snap.results().get("cpu_speed_limit").success()).isTrue();
                assertThat(snap.memoryTotal()).isEqualTo(17_179_869_184.0);
                assertThat(snap.cpuSpeedLimit()).isNull();
                assertThat(snap.power("cpu")).isNull();
                assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_SUCCESS, AttrKeys.SAMPLER, "power")).isEqualTo(0.0);
            }
            assertThat(loads[0]).isEqualTo(1);
        }
    }

    @Test
    void aMachineWithoutTheChannelGroupHasNoPowerSignalButNoFailureEither() throws Exception {
        Lazy<IOReportSource> intel = Lazy.of("IOReport Energy Model", () -> {
            throw new IOReportGroupMissing("IOReport has no channel group 'Energy Model'");
        });
        MacPowerSampler power = new MacPowerSampler(intel);
        MacGpuSampler gpu = new MacGpuSampler(Lazy.of("IOReport GPU Stats", () -> {
            throw new IOReportGroupMissing("IOReport has no channel group 'GPU Stats'");
        }), Lazy.of("t", () -> new long[0]));
        // The first sample opens (and fails to open) the group; later ones see the cached failure.
        for (int i = 0; i < 3; i++) {
            assertThat(power.sample()).as("power sample %d", i + 1).isEmpty();
            assertThat(gpu.sample()).as("gpu sample %d", i + 1).isEmpty();
        }
        // Through the sampling loop too: success every cycle, not only the first.
        try (HostSampling h = new HostSampling(List.of(power, gpu), Duration.ofSeconds(5), Duration.ofSeconds(2),
                new MetricHub(), Clock.systemUTC())) {
            for (int i = 0; i < 3; i++) {
                HostSnapshot snap = h.sampleOnce();
                assertThat(snap.results().get("power").success()).as("power cycle %d", i + 1).isTrue();
                assertThat(snap.results().get("gpu").success()).as("gpu cycle %d", i + 1).isTrue();
            }
        }
        // A refused subscription is still a failure, every time.
        MacPowerSampler refused = new MacPowerSampler(Lazy.of("IOReport Energy Model", () -> {
            throw new IOException("IOReportCreateSubscription refused group 'Energy Model'");
        }));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(refused::sample).hasMessageContaining("refused");
        }
    }

    @Test
    void closingTheSamplingLoopReleasesTheSubscriptions() {
        ScriptedIOReport energy = new ScriptedIOReport();
        ScriptedIOReport gpu = new ScriptedIOReport();
        Lazy<IOReportSource> opened = Lazy.of("energy", () -> energy);
        MacPowerSampler power = new MacPowerSampler(opened);
        MacGpuSampler never = new MacGpuSampler(Lazy.of("gpu", () -> gpu), Lazy.of("t", () -> new long[0]));
        HostSampling h = new HostSampling(List.of(power, never), Duration.ofSeconds(5), Duration.ofSeconds(2),
                new MetricHub(), Clock.systemUTC());
        try (h) {
            // Only the power sampler runs, so only its subscription is opened.
            assertThat(power.name()).isEqualTo("power");
            try {
                power.sample();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        assertThat(energy.closed).isTrue();
        // A subscription that was never opened is not opened just to be closed.
        assertThat(gpu.closed).isFalse();
    }

    @Test
    void resourceAttributesLeaveOutWhatCannotBeRead() {
        FakeMacSystem s = FakeMacSystem.m1Pro();
        assertThat(MacSources.resourceAttributes(Lazy.of("fake", () -> s))).containsExactly(
                Map.entry("host.cpu.model", "Apple M1 Pro"), Map.entry("host.model", "MacBookPro18,3"),
                Map.entry("os.version", "14.6.1"));
        s.strings.remove("hw.model");
        assertThat(MacSources.resourceAttributes(Lazy.of("fake", () -> s))).doesNotContainKey("host.model")
                .containsKey("host.cpu.model");
        assertThat(MacSources.resourceAttributes(Lazy.of("fake", () -> {
            throw new UnsatisfiedLinkError("no libSystem");
        }))).isEmpty();
    }
}
