package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.Attrs;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.Point;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** CPU utilization from PROCESSOR_CPU_LOAD_INFO bytes laid out per mach/processor_info.h. */
class MacCpuSamplerTest {
    private static Double value(List<Point> points, MetricDef def, String... kv) {
        Map<String, String> want = Attrs.of(kv);
        return points.stream().filter(p -> p.metric() == def && p.attributes().equals(want)).map(Point::value)
                .findFirst().orElse(null);
    }

    /** Eight CPUs, all with the same ticks except CPU 0's idle counter, which is near 2^32. */
    private static byte[] reading(long cpu0Idle, long eUser, long eSystem, long eIdle, long pUser, long pSystem, long pIdle) {
        long[][] rows = new long[8][];
        for (int i = 0; i < 8; i++) {
            boolean e = i < 4;
            rows[i] = new long[] {e ? eUser : pUser, e ? eSystem : pSystem, e ? eIdle : pIdle, 0};
        }
        rows[0] = new long[] {eUser, eSystem, cpu0Idle, 0};
        return XnuStructs.cpuLoadInfo(rows);
    }

    /** An M1: perflevel0 Performance (CPUs 4-7), perflevel1 Efficiency (CPUs 0-3). */
    private static FakeMacSystem m1() {
        FakeMacSystem s = FakeMacSystem.m1Pro();
        s.longs.put("hw.nperflevels", 2L);
        s.longs.put("hw.perflevel0.logicalcpu", 4L);
        s.longs.put("hw.perflevel0.physicalcpu", 4L);
        s.strings.put("hw.perflevel0.name", "Performance");
        s.longs.put("hw.perflevel1.logicalcpu", 4L);
        s.longs.put("hw.perflevel1.physicalcpu", 4L);
        s.strings.put("hw.perflevel1.name", "Efficiency");
        return s;
    }

    /** The M1's device tree: cpu0-3 type E (cluster 0), cpu4-7 type P (cluster 1). */
    static List<Map<String, Object>> m1DeviceTree() {
        return java.util.stream.IntStream.range(0, 8).mapToObj(i -> CpuTopologyTest.node(i, i < 4 ? 'E' : 'P', i / 4))
                .collect(java.util.stream.Collectors.toList());
    }

    private static final Lazy<List<DeviceTreeCpus.Cpu>> M1_TREE = Lazy.of("device tree",
            () -> DeviceTreeCpus.decode(m1DeviceTree()));

    @Test
    void decodesUnsignedTicksInHeaderOrder() throws Exception {
        long[][] t = ProcessorCpuLoadInfo.decode(XnuStructs.cpuLoadInfo(
                new long[] {11, 22, 4_294_967_295L, 0}, new long[] {5, 6, 7, 8}));
        assertThat(t).hasDimensions(2, 3);
        assertThat(t[0]).containsExactly(11, 22, 4_294_967_295L);
        assertThat(t[1]).containsExactly(5, 6, 7);
        assertThatThrownBy(() -> ProcessorCpuLoadInfo.decode(new byte[20])).hasMessageContaining("multiple of 16");
    }

    @Test
    void machineAndClusterUtilizationWithA32BitWrap() throws Exception {
        FakeMacSystem s = m1();
        // Reading 1: every CPU user 1000, system 500, idle 8500 (CPU 0 idle 4294967200).
        s.cpuLoad.add(reading(4_294_967_200L, 1000, 500, 8500, 1000, 500, 8500));
        // Reading 2: each E CPU +20 user, +10 system, +70 idle; each P CPU +90 user, +10 system.
        s.cpuLoad.add(reading(4_294_967_270L, 1020, 510, 8570, 1090, 510, 8500));
        // Reading 3: every CPU +30 idle only; CPU 0's counter wraps: 4294967270 + 30 = 2^32 + 4.
        s.cpuLoad.add(reading(4L, 1020, 510, 8600, 1090, 510, 8530));
        MacCpuSampler sampler = new MacCpuSampler(Lazy.of("fake", () -> s));
        FakeMacSystem t = m1(); // the same readings for the per-tier sampler, which reads them on its own
        t.cpuLoad.addAll(s.cpuLoad);
        MacCpuClusterSampler clusters = new MacCpuClusterSampler(Lazy.of("fake", () -> t), M1_TREE);

        assertThat(sampler.sample()).as("the first sample is the baseline").isEmpty();
        assertThat(clusters.sample()).as("the first sample is the baseline").isEmpty();

        List<Point> p = sampler.sample();
        // Machine: user (4 x 20 + 4 x 90) / 800 = 0.55; system 80 / 800 = 0.1; idle 280 / 800 = 0.35.
        assertThat(value(p, HostMetrics.CPU_UTILIZATION, "cpu.mode", "user")).isCloseTo(0.55, within(1e-12));
        assertThat(value(p, HostMetrics.CPU_UTILIZATION, "cpu.mode", "system")).isCloseTo(0.1, within(1e-12));
        assertThat(value(p, HostMetrics.CPU_UTILIZATION, "cpu.mode", "idle")).isCloseTo(0.35, within(1e-12));
        // xnu reports no nice time: the mode is absent, not 0.
        assertThat(value(p, HostMetrics.CPU_UTILIZATION, "cpu.mode", "nice")).isNull();
        assertThat(p).noneMatch(x -> x.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION);
        // Efficiency (CPUs 0-3): 0.2 / 0.1 / 0.7. Performance (CPUs 4-7): 0.9 / 0.1 / 0.
        p = clusters.sample();
        assertThat(value(p, HostMetrics.CPU_CLUSTER_UTILIZATION, "tailwatch.cpu.cluster", "efficiency", "cpu.mode", "user"))
                .isCloseTo(0.2, within(1e-12));
        assertThat(value(p, HostMetrics.CPU_CLUSTER_UTILIZATION, "tailwatch.cpu.cluster", "efficiency", "cpu.mode", "idle"))
                .isCloseTo(0.7, within(1e-12));
        assertThat(value(p, HostMetrics.CPU_CLUSTER_UTILIZATION, "tailwatch.cpu.cluster", "performance", "cpu.mode", "user"))
                .isCloseTo(0.9, within(1e-12));
        assertThat(value(p, HostMetrics.CPU_CLUSTER_UTILIZATION, "tailwatch.cpu.cluster", "performance", "cpu.mode", "idle"))
                .isEqualTo(0.0);

        List<Point> wrapped = sampler.sample();
        // 8 x 30 idle ticks, CPU 0's across the wrap: idle 1.0, not a huge or negative figure.
        assertThat(value(wrapped, HostMetrics.CPU_UTILIZATION, "cpu.mode", "idle")).isEqualTo(1.0);
        assertThat(value(wrapped, HostMetrics.CPU_UTILIZATION, "cpu.mode", "user")).isEqualTo(0.0);
    }

    @Test
    void anIntelMacHasNoClustersButStillAMachineFigure() throws Exception {
        FakeMacSystem s = FakeMacSystem.m1Pro(); // no hw.nperflevels, as on Intel
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(new long[] {0, 0, 0, 0}, new long[] {0, 0, 0, 0}));
        for (int i = 1; i <= 3; i++) {
            // Each interval: CPU 0 +30 user +10 system +60 idle, CPU 1 +10 / +10 / +80.
            s.cpuLoad.add(XnuStructs.cpuLoadInfo(new long[] {30L * i, 10L * i, 60L * i, 0}, new long[] {10L * i, 10L * i, 80L * i, 0}));
        }
        MacCpuSampler sampler = new MacCpuSampler(Lazy.of("fake", () -> s));
        assertThat(sampler.sample()).isEmpty();
        for (int i = 0; i < 3; i++) {
            List<Point> p = sampler.sample();
            assertThat(p).noneMatch(x -> x.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION);
            // user (30 + 10) / 200 = 0.2, system 20 / 200 = 0.1, idle 140 / 200 = 0.7.
            assertThat(value(p, HostMetrics.CPU_UTILIZATION, "cpu.mode", "user")).as("interval %d", i + 1)
                    .isCloseTo(0.2, within(1e-12));
            assertThat(value(p, HostMetrics.CPU_UTILIZATION, "cpu.mode", "idle")).isCloseTo(0.7, within(1e-12));
        }
        // The last reading repeats, so later intervals have no ticks at all: nothing, not 0.
        assertThat(sampler.sample()).isEmpty();
    }

    @Test
    void perflevelsThatDoNotAddUpGiveNoClusterSplit() throws Exception {
        FakeMacSystem s = m1();
        s.longs.put("hw.perflevel0.logicalcpu", 6L);
        List<DeviceTreeCpus.Cpu> tree = DeviceTreeCpus.decode(m1DeviceTree());
        assertThat(CpuTopology.clusters(CpuTopology.perfLevels(s), tree, 8)).isEmpty();
        assertThat(CpuTopology.clusters(CpuTopology.perfLevels(m1()), tree, 8)).containsExactly(
                new CpuTopology.Cluster("performance", List.of(4, 5, 6, 7)), new CpuTopology.Cluster("efficiency", List.of(0, 1, 2, 3)));
    }

    @Test
    void aRefusedCallFailsTheSamplerEveryTime() {
        MacCpuSampler sampler = new MacCpuSampler(Lazy.of("fake", FakeMacSystem::m1Pro));
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(sampler::sample).hasMessageContaining("PROCESSOR_CPU_LOAD_INFO");
        }
    }
}
