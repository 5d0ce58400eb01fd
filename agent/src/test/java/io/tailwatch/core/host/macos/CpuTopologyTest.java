package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Tier membership from the device tree ({@code IODeviceTree:/cpus} children, their properties as
 * IORegistryEntryCreateCFProperties returns them: {@code cluster-type} two bytes of data, the letter and
 * its NUL; {@code logical-cpu-id} a CFNumber) and the hw.perflevelN sysctls. The chips' layouts:
 * M1 Ultra, two M1 Max dies of 2 efficiency + 2 x 4 performance cores each, the dies' CPUs in turn (die 0
 * CPUs 0-9, die 1 CPUs 10-19), so the efficiency cores are CPUs 0-1 and 10-11; M5 Max, 6 super cores
 * (perflevel0 "Super", type P) and 12 performance cores (perflevel1 "Performance", type M, two clusters),
 * as a public M5 Max capture shows them (SiliconScope issue 30: cpu0-5 and cpu6-11 type M, cpu12-17 type P):
 * the top tier is the last six CPUs.
 */
class CpuTopologyTest {
    /** One child of /cpus as the registry hands it over. */
    static Map<String, Object> node(int logicalId, char type, int logicalCluster) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", ("cpu" + logicalId + "\0").getBytes(StandardCharsets.US_ASCII));
        m.put("cluster-type", new byte[] {(byte) type, 0});
        m.put("logical-cpu-id", (long) logicalId);
        m.put("logical-cluster-id", (long) logicalCluster);
        return m;
    }

    /** M1 Ultra: per die 2 E (cluster 0 of the die), 4 P, 4 P. */
    static List<Map<String, Object>> m1Ultra() {
        List<Map<String, Object>> n = new ArrayList<>();
        for (int die = 0; die < 2; die++) {
            int base = die * 10;
            for (int i = 0; i < 10; i++) {
                n.add(node(base + i, i < 2 ? 'E' : 'P', die * 3 + (i < 2 ? 0 : i < 6 ? 1 : 2)));
            }
        }
        return n;
    }

    /** M5 Max: cpu0-11 type M in clusters 0 and 1, cpu12-17 type P in cluster 2. */
    static List<Map<String, Object>> m5Max() {
        List<Map<String, Object>> n = new ArrayList<>();
        for (int i = 0; i < 18; i++) {
            n.add(node(i, i < 12 ? 'M' : 'P', i / 6));
        }
        return n;
    }

    static final List<CpuTopology.PerfLevel> M1_ULTRA = List.of(new CpuTopology.PerfLevel("Performance", 16, 16),
            new CpuTopology.PerfLevel("Efficiency", 4, 4));
    static final List<CpuTopology.PerfLevel> M5_MAX = List.of(new CpuTopology.PerfLevel("Super", 6, 6),
            new CpuTopology.PerfLevel("Performance", 12, 12));

    static List<Integer> ints(int... v) {
        return IntStream.of(v).boxed().toList();
    }

    static List<Integer> range(int from, int to) {
        return IntStream.range(from, to).boxed().toList();
    }

    @Test
    void a_two_die_ultra_has_its_efficiency_cores_on_both_dies() throws Exception {
        List<CpuTopology.Cluster> c = CpuTopology.clusters(M1_ULTRA, DeviceTreeCpus.decode(m1Ultra()), 20);
        assertThat(c).containsExactly(
                new CpuTopology.Cluster("performance", ints(2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19)),
                new CpuTopology.Cluster("efficiency", ints(0, 1, 10, 11)));
    }

    @Test
    void an_m5_max_has_its_super_tier_in_the_last_six_cpus_and_calls_the_slower_tier_performance() throws Exception {
        List<DeviceTreeCpus.Cpu> cpus = DeviceTreeCpus.decode(m5Max());
        assertThat(cpus).hasSize(18);
        assertThat(cpus.get(17)).isEqualTo(new DeviceTreeCpus.Cpu(17, 'P', 2));
        assertThat(cpus.get(6)).isEqualTo(new DeviceTreeCpus.Cpu(6, 'M', 1));
        assertThat(CpuTopology.clusters(M5_MAX, cpus, 18)).containsExactly(
                new CpuTopology.Cluster("super", range(12, 18)),
                new CpuTopology.Cluster("performance", range(0, 12)));
    }

    @Test
    void membership_follows_logical_cpu_id_not_the_registrys_child_order() throws Exception {
        List<Map<String, Object>> shuffled = new ArrayList<>(m5Max());
        Collections.reverse(shuffled);
        // builds that keep logical-cpu-id as 4 bytes of little-endian data: cpu13 as {13, 0, 0, 0}
        shuffled.get(4).put("logical-cpu-id", new byte[] {13, 0, 0, 0});
        assertThat(CpuTopology.clusters(M5_MAX, DeviceTreeCpus.decode(shuffled), 18)).containsExactly(
                new CpuTopology.Cluster("super", range(12, 18)),
                new CpuTopology.Cluster("performance", range(0, 12)));
    }

    @Test
    void counts_that_disagree_with_the_perflevels_or_the_kernel_give_no_split() throws Exception {
        List<DeviceTreeCpus.Cpu> ultra = DeviceTreeCpus.decode(m1Ultra());
        assertThat(CpuTopology.clusters(List.of(new CpuTopology.PerfLevel("Performance", 16, 16),
                new CpuTopology.PerfLevel("Efficiency", 4, 2)), ultra, 20)).isEmpty();
        assertThat(CpuTopology.clusters(M1_ULTRA, ultra, 24)).as("the kernel counts other CPUs").isEmpty();
        assertThat(CpuTopology.clusters(List.of(new CpuTopology.PerfLevel("Performance", 20, 20)), ultra, 20)).isEmpty();
        // three tiers in the device tree, two perflevels
        List<Map<String, Object>> three = m1Ultra();
        three.get(19).put("cluster-type", new byte[] {'M', 0});
        assertThat(CpuTopology.clusters(M1_ULTRA, DeviceTreeCpus.decode(three), 20)).isEmpty();
    }

    @Test
    void a_device_tree_that_does_not_fit_the_layout_is_rejected_naming_the_node() {
        List<Map<String, Object>> twoLetters = m5Max();
        twoLetters.get(3).put("cluster-type", new byte[] {'M', 'P', 0});
        assertThatThrownBy(() -> DeviceTreeCpus.decode(twoLetters)).isInstanceOf(NativeProbe.WrongLayout.class)
                .hasMessageContaining("IODeviceTree:/cpus/cpu3").hasMessageContaining("cluster-type");
        List<Map<String, Object>> unknownTier = m5Max();
        unknownTier.get(0).put("cluster-type", new byte[] {'S', 0});
        assertThatThrownBy(() -> DeviceTreeCpus.decode(unknownTier)).isInstanceOf(NativeProbe.WrongLayout.class)
                .hasMessageContaining("cpu0");
        List<Map<String, Object>> twice = m5Max();
        twice.get(5).put("logical-cpu-id", 4L);
        assertThatThrownBy(() -> DeviceTreeCpus.decode(twice)).isInstanceOf(NativeProbe.WrongLayout.class)
                .hasMessageContaining("logical-cpu-id");
        List<Map<String, Object>> missing = m5Max();
        missing.get(7).remove("logical-cpu-id");
        assertThatThrownBy(() -> DeviceTreeCpus.decode(missing)).isInstanceOf(NativeProbe.WrongLayout.class)
                .hasMessageContaining("cpu7").hasMessageContaining("absent");
    }

    @Test
    void children_without_a_cluster_type_are_no_tiers_not_a_wrong_layout() throws Exception {
        // an Intel Mac's /cpus children carry no cluster-type
        List<Map<String, Object>> intel = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Map<String, Object> m = node(i, 'E', 0);
            m.remove("cluster-type");
            intel.add(m);
        }
        assertThat(DeviceTreeCpus.decode(intel)).isEmpty();
    }

    private static FakeMacSystem withLevels(List<CpuTopology.PerfLevel> levels) {
        FakeMacSystem s = FakeMacSystem.m1Pro();
        s.longs.put("hw.nperflevels", (long) levels.size());
        for (int i = 0; i < levels.size(); i++) {
            s.strings.put("hw.perflevel" + i + ".name", levels.get(i).name());
            s.longs.put("hw.perflevel" + i + ".logicalcpu", (long) levels.get(i).logicalCpus());
            s.longs.put("hw.perflevel" + i + ".physicalcpu", (long) levels.get(i).physicalCpus());
        }
        return s;
    }

    @Test
    void the_sampler_labels_an_m5_maxs_tiers_from_the_cpus_they_hold() throws Exception {
        FakeMacSystem s = withLevels(M5_MAX);
        long[][] zero = new long[18][];
        long[][] later = new long[18][];
        for (int cpu = 0; cpu < 18; cpu++) {
            zero[cpu] = new long[] {0, 0, 0, 0};
            // super cores (12-17): 90 user + 10 idle ticks; performance cores (0-11): 20 user + 80 idle
            later[cpu] = cpu >= 12 ? new long[] {90, 0, 10, 0} : new long[] {20, 0, 80, 0};
        }
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(zero));
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(later));
        MacCpuClusterSampler sampler = new MacCpuClusterSampler(Lazy.of("fake", () -> s),
                Lazy.of("device tree", () -> DeviceTreeCpus.decode(m5Max())));
        assertThat(sampler.sample()).as("the first sample is the baseline").isEmpty();
        List<Point> p = sampler.sample();
        // numbering (the first six CPUs as the top tier) would give super 0.2 and performance (6 x 20 + 6 x 90) / 1200 = 0.55
        assertThat(user(p, "super")).isCloseTo(0.9, within(1e-12));
        assertThat(user(p, "performance")).isCloseTo(0.2, within(1e-12));
        assertThat(sampler.clusters()).extracting(CpuTopology.Cluster::name).containsExactly("super", "performance");
    }

    @Test
    void the_sampler_reads_an_ultras_clusters_from_the_cpus_they_hold() throws Exception {
        FakeMacSystem s = withLevels(M1_ULTRA);
        long[][] zero = new long[20][];
        long[][] later = new long[20][];
        for (int cpu = 0; cpu < 20; cpu++) {
            zero[cpu] = new long[] {0, 0, 0, 0};
            boolean efficiency = cpu == 0 || cpu == 1 || cpu == 10 || cpu == 11;
            // efficiency cores: 80 user + 20 idle ticks; performance cores: 10 user + 90 idle
            later[cpu] = efficiency ? new long[] {80, 0, 20, 0} : new long[] {10, 0, 90, 0};
        }
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(zero));
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(later));
        MacCpuClusterSampler sampler = new MacCpuClusterSampler(Lazy.of("fake", () -> s),
                Lazy.of("device tree", () -> DeviceTreeCpus.decode(m1Ultra())));
        sampler.sample();
        List<Point> p = sampler.sample();
        // numbering would have put CPUs 0-3 in efficiency: (80 + 80 + 10 + 10) / 400 = 0.45, not 0.8
        assertThat(user(p, "efficiency")).isCloseTo(0.8, within(1e-12));
        assertThat(user(p, "performance")).isCloseTo(0.1, within(1e-12));
    }

    @Test
    void an_unreadable_device_tree_fails_the_cluster_sampler_and_leaves_the_machine_figure() throws Exception {
        FakeMacSystem s = withLevels(M5_MAX);
        long[][] zero = new long[18][];
        for (int cpu = 0; cpu < 18; cpu++) {
            zero[cpu] = new long[] {cpu, 0, 100, 0};
        }
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(zero));
        MacCpuClusterSampler clusters = new MacCpuClusterSampler(Lazy.of("fake", () -> s), Lazy.of("device tree", () -> {
            throw new java.io.IOException("no IODeviceTree:/cpus in the IORegistry");
        }));
        assertThatThrownBy(clusters::sample).hasMessageContaining("IODeviceTree:/cpus");
        MacCpuSampler machine = new MacCpuSampler(Lazy.of("fake", () -> s));
        machine.sample();
        assertThat(machine.probeId()).isNotEqualTo(clusters.probeId());
    }

    @Test
    void an_intel_mac_reads_no_device_tree_and_exports_no_split() throws Exception {
        FakeMacSystem s = FakeMacSystem.m1Pro(); // no hw.nperflevels, as on Intel
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(new long[] {0, 0, 0, 0}, new long[] {0, 0, 0, 0}));
        s.cpuLoad.add(XnuStructs.cpuLoadInfo(new long[] {30, 10, 60, 0}, new long[] {10, 10, 80, 0}));
        MacCpuClusterSampler sampler = new MacCpuClusterSampler(Lazy.of("fake", () -> s), Lazy.of("device tree", () -> {
            throw new AssertionError("the device tree is not read without tiers");
        }));
        assertThat(sampler.sample()).isEmpty();
        assertThat(sampler.sample()).isEmpty();
    }

    static Double user(List<Point> p, String cluster) {
        return p.stream().filter(x -> x.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION
                        && cluster.equals(x.attributes().get(AttrKeys.CPU_CLUSTER)) && "user".equals(x.attributes().get("cpu.mode")))
                .map(Point::value).findFirst().orElse(null);
    }
}
