package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.CpuUtilization;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code tailwatch.cpu.cluster.utilization} on Apple silicon: PROCESSOR_CPU_LOAD_INFO ticks summed per core
 * tier, with membership from the device tree and names from the perflevel sysctls ({@link CpuTopology},
 * read once on the first sample). Where the two do not agree, or there are no tiers (Intel), nothing is
 * exported: never a split guessed from CPU numbering. A device tree that cannot be read fails this
 * sampler (its status says why); the machine-wide figure is {@link MacCpuSampler}'s and keeps running.
 */
public final class MacCpuClusterSampler implements NativeSampler {
    private final Lazy<MacSystem> system;
    private final Lazy<List<DeviceTreeCpus.Cpu>> deviceTree;
    private long[][] previous;
    private List<CpuTopology.Cluster> clusters;

    public MacCpuClusterSampler(Lazy<MacSystem> system, Lazy<List<DeviceTreeCpus.Cpu>> deviceTree) {
        this.system = system;
        this.deviceTree = deviceTree;
    }

    @Override
    public String name() {
        return "cpu_cluster";
    }

    @Override
    public String probeId() {
        return MacProbes.DEVICE_TREE_CPUS;
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        MacSystem s = system.get();
        long[][] now = ProcessorCpuLoadInfo.decode(s.processorCpuLoadInfo());
        if (clusters == null) {
            List<CpuTopology.PerfLevel> levels = CpuTopology.perfLevels(s);
            // no tiers (Intel, one perflevel): nothing to read in the device tree
            clusters = levels.size() < 2 ? List.of() : CpuTopology.clusters(levels, deviceTree.get(), now.length);
        }
        long[][] before = previous;
        previous = now;
        if (before == null || before.length != now.length) {
            return List.of();
        }
        CpuMode[] modes = ProcessorCpuLoadInfo.MODES;
        List<Point> out = new ArrayList<>();
        for (CpuTopology.Cluster c : clusters) {
            long[][] b = new long[c.cpus().size()][];
            long[][] n = new long[c.cpus().size()][];
            for (int i = 0; i < b.length; i++) {
                b[i] = before[c.cpus().get(i)];
                n[i] = now[c.cpus().get(i)];
            }
            Map<CpuMode, Double> u = CpuUtilization.of(b, n, modes, 0, b.length, true);
            u.forEach((mode, v) -> out.add(Point.of(HostMetrics.CPU_CLUSTER_UTILIZATION, v,
                    mode, AttrKeys.CPU_CLUSTER, c.name())));
        }
        return out;
    }

    /** The tiers found on the first sample (empty before it, and where the split is unknown). */
    synchronized List<CpuTopology.Cluster> clusters() {
        return clusters == null ? List.of() : clusters;
    }
}
