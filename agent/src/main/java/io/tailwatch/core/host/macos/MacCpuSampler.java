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
 * {@code system.cpu.utilization} from per-CPU PROCESSOR_CPU_LOAD_INFO ticks and, on Apple silicon, the
 * same per core cluster, with membership and names from the hardware ({@link CpuTopology}: the
 * {@code hw.perflevelN} sysctls and the IOReport per-core channel names, read once). When they do not
 * agree, or the channel names cannot be read, only the machine-wide figure is exported. The first sample
 * is the baseline.
 */
public final class MacCpuSampler implements NativeSampler {
    private final Lazy<MacSystem> system;
    private final Lazy<List<String>> coreChannels;
    private long[][] previous;
    private List<CpuTopology.Cluster> clusters;

    /** {@code coreChannels}: the IOReport "CPU Core Performance States" channel names, in IOReport's order. */
    public MacCpuSampler(Lazy<MacSystem> system, Lazy<List<String>> coreChannels) {
        this.system = system;
        this.coreChannels = coreChannels;
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public String probeId() {
        return MacProbes.CPU;
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        MacSystem s = system.get();
        long[][] now = ProcessorCpuLoadInfo.decode(s.processorCpuLoadInfo());
        if (clusters == null) {
            List<String> channels = coreChannels.getOrNull();
            clusters = channels == null ? List.of() : CpuTopology.clusters(CpuTopology.perfLevels(s), channels, now.length);
        }
        long[][] before = previous;
        previous = now;
        if (before == null || before.length != now.length) {
            return List.of();
        }
        CpuMode[] modes = ProcessorCpuLoadInfo.MODES;
        List<Point> out = new ArrayList<>();
        CpuUtilization.of(before, now, modes, 0, now.length, true)
                .forEach((mode, v) -> out.add(Point.of(HostMetrics.CPU_UTILIZATION, v, mode)));
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

    /** The clusters found on the first sample (empty before it, and where the split is unknown). */
    synchronized List<CpuTopology.Cluster> clusters() {
        return clusters == null ? List.of() : clusters;
    }
}
