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
import java.util.Locale;
import java.util.Map;

/**
 * {@code system.cpu.utilization} from per-CPU PROCESSOR_CPU_LOAD_INFO ticks and, on Apple silicon,
 * the same per core cluster. Clusters come from the {@code hw.nperflevels} and
 * {@code hw.perflevelN.name} / {@code .logicalcpu} sysctls (perflevel0 is the fastest). Logical CPUs
 * are numbered from the slowest cluster up (CPUs 0-3 are the efficiency cores of an M1, as
 * powermetrics' "E-Cluster" lists them and as mactop assigns them, internal/app/app.go lines
 * 1185-1188), so the last perflevel takes the first CPUs. When the perflevels do not add up to the
 * CPU count, the cluster split is unknown and only the machine-wide figure is exported. The first
 * sample is the baseline.
 */
public final class MacCpuSampler implements NativeSampler {
    /** Bounds the sysctl walk; Apple silicon has 2 (M1-M4) or 3 levels. */
    static final int MAX_PERFLEVELS = 8;

    private final Lazy<MacSystem> system;
    private long[][] previous;
    private List<Cluster> clusters;

    record Cluster(String name, int from, int to) {
    }

    public MacCpuSampler(Lazy<MacSystem> system) {
        this.system = system;
    }

    @Override
    public String name() {
        return "cpu";
    }

    @Override
    public String probeId() {
        return MacProbes.LIBSYSTEM;
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        MacSystem s = system.get();
        long[][] now = ProcessorCpuLoadInfo.decode(s.processorCpuLoadInfo());
        if (clusters == null) {
            clusters = clusters(s, now.length);
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
        for (Cluster c : clusters) {
            Map<CpuMode, Double> u = CpuUtilization.of(before, now, modes, c.from(), c.to(), true);
            u.forEach((mode, v) -> out.add(Point.of(HostMetrics.CPU_CLUSTER_UTILIZATION, v,
                    mode, AttrKeys.CPU_CLUSTER, c.name())));
        }
        return out;
    }

    /** The CPU ranges of each perflevel, slowest first; empty on Intel or when they do not add up. */
    static List<Cluster> clusters(MacSystem s, int cpus) {
        long levels;
        try {
            levels = s.sysctlLong("hw.nperflevels");
        } catch (IOException e) {
            return List.of(); // Intel Macs have no perflevels
        }
        if (levels < 2 || levels > MAX_PERFLEVELS) {
            return List.of();
        }
        List<Cluster> out = new ArrayList<>();
        int next = 0;
        try {
            for (long level = levels - 1; level >= 0; level--) {
                int n = (int) s.sysctlLong("hw.perflevel" + level + ".logicalcpu");
                String name = s.sysctlString("hw.perflevel" + level + ".name").strip().toLowerCase(Locale.ROOT);
                if (n <= 0 || name.isEmpty() || name.length() > 32) {
                    return List.of();
                }
                out.add(new Cluster(name, next, next + n));
                next += n;
            }
        } catch (IOException e) {
            return List.of();
        }
        return next == cpus ? List.copyOf(out) : List.of();
    }
}
