package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * tailwatch.process.gpu.memory.usage: each engine's graphics memory, the TASK_VM_INFO rev3 graphics ledgers
 * ({@link TaskVmInfo}) summed over the engine's process tree (its pids as engine discovery found them,
 * Ollama's runners included). An engine none of whose processes can be read is absent, not 0.
 */
public final class MacEngineGpuMemorySampler implements NativeSampler {
    private final Lazy<TaskVmSource> source;
    private final Supplier<Map<String, Set<Integer>>> pids;

    public MacEngineGpuMemorySampler(Lazy<TaskVmSource> source, Supplier<Map<String, Set<Integer>>> pids) {
        this.source = source;
        this.pids = pids;
    }

    @Override
    public String name() {
        return "engine_gpu_memory";
    }

    @Override
    public String probeId() {
        return MacProbes.TASK_VM_INFO;
    }

    @Override
    public List<Point> sample() throws IOException {
        Map<String, Set<Integer>> byEngine = pids.get();
        if (byEngine.isEmpty()) {
            return List.of();
        }
        TaskVmSource s = source.get();
        Map<String, Long> sums = new TreeMap<>();
        for (Map.Entry<String, Set<Integer>> e : byEngine.entrySet()) {
            for (int pid : e.getValue()) {
                TaskVmSource.Raw raw = s.read(pid);
                TaskVmInfo.Reading r = raw == null ? null : TaskVmInfo.decode(raw.bytes(), raw.words());
                if (r != null) {
                    sums.merge(e.getKey(), r.graphicsBytes(), Long::sum);
                }
            }
        }
        List<Point> out = new ArrayList<>(sums.size());
        sums.forEach((engine, bytes) -> out.add(HostMetrics.processGpuMemory(engine, bytes)));
        return out;
    }
}
