package io.tailwatch.core.host.macos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Which logical CPU belongs to which core tier, from the hardware rather than from CPU numbering. The
 * tiers and their names come from the {@code hw.perflevelN} sysctls ({@code .name}, {@code .logicalcpu},
 * {@code .physicalcpu}; perflevel0 is the fastest), the membership from the device tree
 * ({@link DeviceTreeCpus}: each CPU's {@code logical-cpu-id} and {@code cluster-type} letter: E
 * efficiency; M the middle tier of M5 Pro/Max, which macOS names "Performance"; P the fastest, "Super"
 * there). Tiers are ranked P, M, E and matched to the perflevels in that order. Anything that does not
 * agree (a tier count that is not the perflevel's core count, counts that do not add up to the CPUs the
 * kernel reports) gives no split: the clusters are unknown, not guessed from numbering, which is wrong on
 * a two-die Ultra (its second die's efficiency cores are numbered after the first die's performance cores)
 * and on an M5 Max (its super cores are the last six).
 */
public final class CpuTopology {
    /** Bounds the sysctl walk; Apple silicon has 2 (M1-M4) or 3 levels. */
    static final int MAX_PERFLEVELS = 8;
    private static final String TIER_ORDER = "PME";

    private CpuTopology() {
    }

    /** One perflevel as its sysctls give it. */
    public record PerfLevel(String name, int logicalCpus, int physicalCpus) {
    }

    /** A tier: its perflevel's name, lower case, and the logical CPUs in it (ascending). */
    public record Cluster(String name, List<Integer> cpus) {
        public Cluster {
            cpus = List.copyOf(cpus);
        }
    }

    /**
     * The tiers, fastest first; empty when the perflevels and the device tree do not agree or there are
     * fewer than two levels (Intel Macs have none; a single level has nothing to split).
     */
    public static List<Cluster> clusters(List<PerfLevel> levels, List<DeviceTreeCpus.Cpu> deviceTree, int cpus) {
        if (levels.size() < 2 || levels.size() > MAX_PERFLEVELS || deviceTree.size() != cpus) {
            return List.of();
        }
        Map<Character, List<Integer>> byTier = new LinkedHashMap<>();
        for (DeviceTreeCpus.Cpu c : deviceTree) {
            byTier.computeIfAbsent(c.tier(), k -> new ArrayList<>()).add(c.logicalId());
        }
        List<Character> tiers = new ArrayList<>(byTier.keySet());
        tiers.sort((a, b) -> TIER_ORDER.indexOf(a) - TIER_ORDER.indexOf(b));
        if (tiers.size() != levels.size()) {
            return List.of();
        }
        List<Cluster> out = new ArrayList<>();
        int total = 0;
        for (int i = 0; i < levels.size(); i++) {
            PerfLevel l = levels.get(i);
            List<Integer> members = byTier.get(tiers.get(i));
            members.sort(null);
            String name = l.name().strip().toLowerCase(Locale.ROOT);
            if (name.isEmpty() || name.length() > 32 || l.logicalCpus() != members.size()
                    || l.physicalCpus() != members.size()) {
                return List.of();
            }
            total += l.logicalCpus();
            out.add(new Cluster(name, members));
        }
        return total == cpus ? List.copyOf(out) : List.of();
    }

    /** The perflevels from the sysctls, perflevel0 first; empty where there are none (Intel) or one cannot be read. */
    public static List<PerfLevel> perfLevels(MacSystem s) {
        try {
            long n = s.sysctlLong("hw.nperflevels");
            if (n < 1 || n > MAX_PERFLEVELS) {
                return List.of();
            }
            List<PerfLevel> out = new ArrayList<>();
            for (int level = 0; level < n; level++) {
                String p = "hw.perflevel" + level + ".";
                out.add(new PerfLevel(s.sysctlString(p + "name"), (int) s.sysctlLong(p + "logicalcpu"),
                        (int) s.sysctlLong(p + "physicalcpu")));
            }
            return List.copyOf(out);
        } catch (java.io.IOException e) {
            return List.of();
        }
    }
}
