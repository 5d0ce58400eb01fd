package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.AttrValues.GpuMemoryState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * hw.gpu.memory.usage (in_use, allocated) from the IOAccelerator's PerformanceStatistics, and
 * tailwatch.gpu.wired_limit from the {@code iogpu.wired_limit_mb} sysctl (left out while it is 0, the
 * default, and where the sysctl does not exist: macOS before 14 named it {@code debug.iogpu.wired_limit}).
 * An IORegistry that cannot be read fails the sampler (both series are lost for the cycle).
 */
public final class MacGpuMemorySampler implements NativeSampler {
    public static final String WIRED_LIMIT_SYSCTL = "iogpu.wired_limit_mb";
    private final Lazy<AcceleratorSource> accelerator;
    private final Lazy<MacSystem> system;

    public MacGpuMemorySampler(Lazy<AcceleratorSource> accelerator, Lazy<MacSystem> system) {
        this.accelerator = accelerator;
        this.system = system;
    }

    /** Its native calls run first in the self-check's child on a new OS build (MacProbes). */
    @Override
    public String probeId() {
        return MacProbes.ACCELERATOR;
    }

    @Override
    public String name() {
        return "gpu_memory";
    }

    @Override
    public List<Point> sample() throws IOException {
        return points(AcceleratorStatistics.of(accelerator.get().performanceStatistics()), wiredLimitMb(system.getOrNull()));
    }

    /**
     * The sysctl in MiB, or null when it is 0 (the default) or cannot be read: it is an optional
     * setting beside the statistics, so a macOS without it costs this series alone.
     */
    static Long wiredLimitMb(MacSystem s) {
        if (s == null) {
            return null;
        }
        try {
            long v = s.sysctlLong(WIRED_LIMIT_SYSCTL);
            return v > 0 ? v : null;
        } catch (IOException e) {
            return null;
        }
    }

    static List<Point> points(AcceleratorStatistics stats, Long wiredLimitMb) {
        List<Point> out = new ArrayList<>(3);
        if (stats != null && stats.inUseBytes() != null) {
            out.add(HostMetrics.gpuMemoryUsage(stats.inUseBytes(), GpuMemoryState.IN_USE));
        }
        if (stats != null && stats.allocatedBytes() != null) {
            out.add(HostMetrics.gpuMemoryUsage(stats.allocatedBytes(), GpuMemoryState.ALLOCATED));
        }
        if (wiredLimitMb != null) {
            out.add(Point.of(HostMetrics.GPU_WIRED_LIMIT, (double) wiredLimitMb * (1L << 20)));
        }
        return out;
    }
}
