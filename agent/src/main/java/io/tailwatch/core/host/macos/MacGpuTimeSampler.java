package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * tailwatch.process.gpu.utilization: each engine's share of each GPU over the last interval, from the
 * accumulated GPU time of the accelerator's user clients its processes created (the same processes the
 * memory footprint sums, {@code engine_processes}), as delta GPU nanoseconds over wall nanoseconds, bounded
 * to [0, 1] per GPU (command queues can overlap). A client seen in both readings counts its increase; one
 * created since the last reading (an entry id above all of that reading's) counts all its time; one that
 * went away between readings takes its last interval's time with it (a slight undercount). An engine with
 * processes but no GPU client has 0: it runs nothing on the GPU. Absent: on the first reading, for an
 * engine with no process, for an engine with a client whose time cannot be placed (a counter that went
 * back, or a client the earlier reading may have missed), and when the accelerator shows no client at all
 * (the window server always has one, so none means the children could not be read).
 */
public final class MacGpuTimeSampler implements NativeSampler {
    private final Lazy<AcceleratorSource> accelerator;
    private final Supplier<Map<String, Set<Integer>>> enginePids;
    private final LongSupplier nanoTime;
    private Map<Long, Long> previous;
    private long previousMaxId;
    private long previousNanos;
    private GpuClients last;

    public MacGpuTimeSampler(Lazy<AcceleratorSource> accelerator, Supplier<Map<String, Set<Integer>>> enginePids) {
        this(accelerator, enginePids, System::nanoTime);
    }

    MacGpuTimeSampler(Lazy<AcceleratorSource> accelerator, Supplier<Map<String, Set<Integer>>> enginePids, LongSupplier nanoTime) {
        this.accelerator = accelerator;
        this.enginePids = enginePids;
        this.nanoTime = nanoTime;
    }

    @Override
    public String name() {
        return "gpu_time";
    }

    @Override
    public String probeId() {
        return MacProbes.ACCELERATOR_CLIENTS;
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        GpuClients now = accelerator.get().userClients();
        long at = nanoTime.getAsLong();
        Map<Long, Long> before = previous;
        long beforeMaxId = previousMaxId;
        long wall = at - previousNanos;
        previous = new HashMap<>();
        for (GpuClients.Client c : now.clients()) {
            previous.put(c.entryId(), c.gpuTimeNs());
        }
        previousMaxId = Math.max(previousMaxId, now.maxEntryId());
        previousNanos = at;
        last = now;
        if (before == null || wall <= 0 || now.clients().isEmpty()) {
            return List.of();
        }
        return points(utilization(now, before, beforeMaxId, wall, enginePids.get()));
    }

    /**
     * The last reading and when it was taken ({@link System#nanoTime}), for the doctor's comparison with
     * {@code ioreg}; null before the first.
     */
    public synchronized Reading lastReading() {
        return last == null ? null : new Reading(last, previousNanos);
    }

    /** One reading of the clients and its {@link System#nanoTime}. */
    public record Reading(GpuClients clients, long nanoTime) {
    }

    /**
     * Per engine, per GPU index, the share of the GPU over {@code wallNs}; an engine whose share is unknown
     * is left out, one with processes but no client has 0 on every GPU.
     */
    static Map<String, double[]> utilization(GpuClients now, Map<Long, Long> before, long beforeMaxId, long wallNs,
                                             Map<String, Set<Integer>> enginePids) {
        Map<Integer, String> engineOf = new HashMap<>();
        Map<String, long[]> delta = new TreeMap<>();
        int gpus = Math.max(1, now.gpus());
        for (Map.Entry<String, Set<Integer>> e : enginePids.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            delta.put(e.getKey(), new long[gpus]);
            for (int pid : e.getValue()) {
                engineOf.put(pid, e.getKey());
            }
        }
        Set<String> unknown = new java.util.HashSet<>();
        for (GpuClients.Client c : now.clients()) {
            String engine = engineOf.get(c.pid());
            if (engine == null || c.gpu() < 0 || c.gpu() >= gpus) {
                continue;
            }
            Long was = before.get(c.entryId());
            long d;
            if (was != null) {
                if (c.gpuTimeNs() < was) {
                    unknown.add(engine);
                    continue;
                }
                d = c.gpuTimeNs() - was;
            } else if (c.entryId() > beforeMaxId) {
                d = c.gpuTimeNs();
            } else {
                unknown.add(engine);
                continue;
            }
            delta.get(engine)[c.gpu()] += d;
        }
        Map<String, double[]> out = new TreeMap<>();
        delta.forEach((engine, ns) -> {
            if (!unknown.contains(engine)) {
                double[] u = new double[ns.length];
                for (int g = 0; g < ns.length; g++) {
                    u[g] = Math.min(1.0, Math.max(0.0, (double) ns[g] / wallNs));
                }
                out.put(engine, u);
            }
        });
        return out;
    }

    static List<Point> points(Map<String, double[]> utilization) {
        List<Point> out = new ArrayList<>();
        utilization.forEach((engine, u) -> {
            for (int g = 0; g < u.length; g++) {
                out.add(HostMetrics.processGpuUtilization(engine, "gpu" + g, u[g]));
            }
        });
        return out;
    }
}
