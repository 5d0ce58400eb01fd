package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;

/**
 * hw.gpu.memory.limit: Metal's recommended maximum working set. A sampler of its own, so that
 * Metal failing to load (or a wrong mapping) costs this one series and nothing else.
 */
public final class MacGpuLimitSampler implements NativeSampler {
    private final Lazy<MetalWorkingSet> metal;

    public MacGpuLimitSampler(Lazy<MetalWorkingSet> metal) {
        this.metal = metal;
    }

    /** Its native calls run first in the self-check's child on a new OS build (MacProbes). */
    @Override
    public String probeId() {
        return MacProbes.METAL;
    }

    @Override
    public String name() {
        return "gpu_limit";
    }

    @Override
    public List<Point> sample() throws IOException {
        long limit = metal.get().recommendedMaxWorkingSetSize();
        if (limit <= 0) {
            throw new IOException("recommendedMaxWorkingSetSize is " + limit);
        }
        return List.of(HostMetrics.gpuMemoryLimit(limit));
    }
}
