package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Cluster membership from the hw.perflevelN sysctls and the IOReport per-core channel names. The chips'
 * layouts: M1 Ultra, two M1 Max dies of 2 efficiency + 2 x 4 performance cores each, the dies' CPUs in
 * turn (die 0 CPUs 0-9, die 1 CPUs 10-19), so the efficiency cores are CPUs 0-1 and 10-11; M5 Max, 6 super
 * cores (perflevel0 "Super") and 12 performance cores (perflevel1 "Performance", the slower tier), as a
 * public M5 Max capture shows them (SiliconScope issue 30: cpu0-5 and cpu6-11 type M, cpu12-17 type P "Super";
 * its per-core channels MCPU0_0 ... MCPU1_5 then PACC_0 ... PACC_5).
 */
class CpuTopologyTest {
    static List<String> range(String prefix, int n) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
    }

    /** M1 Ultra channel names as Ultra chips publish them (DIE_n_ prefix, cluster, then _CPUn). */
    static List<String> m1UltraCores(String die0, String die1) {
        List<String> c = new ArrayList<>();
        for (String die : List.of(die0, die1)) {
            c.addAll(range(die + "ECPU_CPU", 2));
            c.addAll(range(die + "PCPU_CPU", 4));
            c.addAll(range(die + "PCPU1_CPU", 4));
        }
        return c;
    }

    static final List<CpuTopology.PerfLevel> M1_ULTRA = List.of(new CpuTopology.PerfLevel("Performance", 16, 16),
            new CpuTopology.PerfLevel("Efficiency", 4, 4));

    static List<Integer> ints(int... v) {
        return IntStream.of(v).boxed().toList();
    }

    @Test
    void a_two_die_ultra_has_its_efficiency_cores_on_both_dies() {
        List<CpuTopology.Cluster> c = CpuTopology.clusters(M1_ULTRA, m1UltraCores("DIE_0_", "DIE_1_"), 20);
        assertThat(c).containsExactly(
                new CpuTopology.Cluster("performance", ints(2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19)),
                new CpuTopology.Cluster("efficiency", ints(0, 1, 10, 11)));
        // macOS 27 writes the prefix as "DIE0 ": the same membership
        assertThat(CpuTopology.clusters(M1_ULTRA, m1UltraCores("DIE0 ", "DIE1 "), 20)).isEqualTo(c);
    }

    @Test
    void an_m5_max_calls_its_slower_tier_performance() {
        List<String> cores = new ArrayList<>();
        cores.addAll(range("MCPU0_", 6));
        cores.addAll(range("MCPU1_", 6));
        cores.addAll(range("PACC_", 6));
        List<CpuTopology.PerfLevel> levels = List.of(new CpuTopology.PerfLevel("Super", 6, 6),
                new CpuTopology.PerfLevel("Performance", 12, 12));
        assertThat(CpuTopology.clusters(levels, cores, 18)).containsExactly(
                new CpuTopology.Cluster("super", ints(12, 13, 14, 15, 16, 17)),
                new CpuTopology.Cluster("performance", ints(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)));
    }

    @Test
    void channels_and_perflevels_that_disagree_give_no_split() {
        List<String> ultra = m1UltraCores("DIE_0_", "DIE_1_");
        // a perflevel count that is not its tier's core count
        assertThat(CpuTopology.clusters(List.of(new CpuTopology.PerfLevel("Performance", 16, 16),
                new CpuTopology.PerfLevel("Efficiency", 4, 2)), ultra, 20)).isEmpty();
        // fewer channels than CPUs, a channel of no known tier, one level
        assertThat(CpuTopology.clusters(M1_ULTRA, ultra.subList(0, 19), 20)).isEmpty();
        List<String> odd = new ArrayList<>(ultra);
        odd.set(0, "DIE_0_XCPU_CPU0");
        assertThat(CpuTopology.clusters(M1_ULTRA, odd, 20)).isEmpty();
        assertThat(CpuTopology.clusters(List.of(new CpuTopology.PerfLevel("Performance", 20, 20)), ultra, 20)).isEmpty();
        // three tiers in the channels, two perflevels
        List<String> three = new ArrayList<>(ultra);
        three.set(2, "DIE_0_MCPU_CPU0");
        assertThat(CpuTopology.clusters(M1_ULTRA, three, 20)).isEmpty();
    }

    @Test
    void the_sampler_reads_an_ultras_clusters_from_the_cpus_they_hold() throws Exception {
        FakeMacSystem s = FakeMacSystem.m1Pro();
        s.longs.put("hw.nperflevels", 2L);
        s.strings.put("hw.perflevel0.name", "Performance");
        s.longs.put("hw.perflevel0.logicalcpu", 16L);
        s.longs.put("hw.perflevel0.physicalcpu", 16L);
        s.strings.put("hw.perflevel1.name", "Efficiency");
        s.longs.put("hw.perflevel1.logicalcpu", 4L);
        s.longs.put("hw.perflevel1.physicalcpu", 4L);
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
        MacCpuSampler sampler = new MacCpuSampler(Lazy.of("fake", () -> s), Lazy.of("channels",
                () -> m1UltraCores("DIE_0_", "DIE_1_")));
        sampler.sample();
        List<Point> p = sampler.sample();
        // numbering would have put CPUs 0-3 in efficiency: (80 + 80 + 10 + 10) / 400 = 0.45, not 0.8
        assertThat(user(p, "efficiency")).isCloseTo(0.8, within(1e-12));
        assertThat(user(p, "performance")).isCloseTo(0.1, within(1e-12));
    }

    static Double user(List<Point> p, String cluster) {
        return p.stream().filter(x -> x.metric() == HostMetrics.CPU_CLUSTER_UTILIZATION
                        && cluster.equals(x.attributes().get(AttrKeys.CPU_CLUSTER)) && "user".equals(x.attributes().get("cpu.mode")))
                .map(Point::value).findFirst().orElse(null);
    }
}
