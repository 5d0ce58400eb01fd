package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.CpuUtilization;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Machine-wide {@code system.cpu.utilization} from per-CPU PROCESSOR_CPU_LOAD_INFO ticks. The same per core
 * tier is {@link MacCpuClusterSampler}'s, a sampler of its own so that a device tree that cannot be read
 * (or is rejected by the self-check) leaves this figure running. The first sample is the baseline.
 */
public final class MacCpuSampler implements NativeSampler {
    private final Lazy<MacSystem> system;
    private long[][] previous;

    public MacCpuSampler(Lazy<MacSystem> system) {
        this.system = system;
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
        long[][] now = ProcessorCpuLoadInfo.decode(system.get().processorCpuLoadInfo());
        long[][] before = previous;
        previous = now;
        if (before == null || before.length != now.length) {
            return List.of();
        }
        List<Point> out = new ArrayList<>();
        CpuUtilization.of(before, now, ProcessorCpuLoadInfo.MODES, 0, now.length, true)
                .forEach((mode, v) -> out.add(Point.of(HostMetrics.CPU_UTILIZATION, v, mode)));
        return out;
    }
}
