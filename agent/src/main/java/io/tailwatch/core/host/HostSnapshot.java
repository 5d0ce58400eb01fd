package io.tailwatch.core.host;

import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValue;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Immutable result of one host sampling cycle: every series read plus each sampler's outcome.
 * Typed accessors return null where the signal is unknown on this machine.
 */
public final class HostSnapshot {
    public static final HostSnapshot EMPTY = new HostSnapshot(Instant.EPOCH, List.of(), Map.of());

    private final Instant at;
    private final MetricSnapshot points;
    private final Map<String, SamplerResult> results;

    public HostSnapshot(Instant at, List<Point> points, Map<String, SamplerResult> results) {
        this.at = at;
        this.points = new MetricSnapshot(at, points);
        this.results = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(results));
    }

    public Instant at() {
        return at;
    }

    public List<Point> points() {
        return points.points();
    }

    public Map<String, SamplerResult> results() {
        return results;
    }

    public Double value(MetricDef metric, String... keyValues) {
        return points.value(metric, keyValues);
    }

    /** The value of the series with this enumerated attribute value (and these free pairs), or null. */
    public Double value(MetricDef metric, AttrValue typed, String... keyValues) {
        return points.value(metric, typed, keyValues);
    }

    public Double memoryTotal() {
        return value(HostMetrics.MEMORY_LIMIT);
    }

    public Double memoryAvailable() {
        return value(HostMetrics.MEMORY_AVAILABLE);
    }

    /** The GPU working-set limit (hw.gpu.memory.limit), null where there is none. */
    public Double gpuMemoryLimit() {
        return value(HostMetrics.GPU_MEMORY_LIMIT);
    }

    public Double memoryUsed() {
        return points.value(HostMetrics.MEMORY_USAGE, MemoryState.USED);
    }

    public Double swapUsed() {
        return points.value(HostMetrics.PAGING_USAGE, PagingState.USED);
    }

    public Double swapFree() {
        return points.value(HostMetrics.PAGING_USAGE, PagingState.FREE);
    }

    public Double swapTotal() {
        Double u = swapUsed();
        Double f = swapFree();
        return u == null || f == null ? null : u + f;
    }

    public Double pressureLevel() {
        return value(HostMetrics.PRESSURE_LEVEL);
    }

    public Double thermalLevel() {
        return value(HostMetrics.THERMAL_LEVEL);
    }

    public Double cpuSpeedLimit() {
        return value(HostMetrics.CPU_SPEED_LIMIT);
    }

    /** The hottest sensor, or null when none is readable. */
    public Double temperature() {
        Double max = null;
        for (io.tailwatch.metrics.Point p : points.of(HostMetrics.THERMAL_TEMPERATURE)) {
            max = max == null ? p.value() : Math.max(max, p.value());
        }
        return max;
    }

    /** The power of one rail (hw.name: cpu, gpu, ane, dram, package, psys, ...), or null. */
    public Double power(String rail) {
        return value(HostMetrics.POWER, AttrKeys.HW_NAME, rail);
    }

    public Double processFootprint(String engine) {
        return value(HostMetrics.PROCESS_FOOTPRINT, AttrKeys.ENGINE, engine);
    }

    /** An engine's graphics (Metal) memory summed over its processes (macOS TASK_VM_INFO), or null. */
    public Double processGpuMemory(String engine) {
        return value(HostMetrics.PROCESS_GPU_MEMORY, AttrKeys.ENGINE, engine);
    }

    /** The graphics memory of every engine the snapshot has it for, summed; null when it has none. */
    public Double enginesGpuMemory() {
        Double sum = null;
        for (Point p : points.of(HostMetrics.PROCESS_GPU_MEMORY)) {
            sum = sum == null ? p.value() : sum + p.value();
        }
        return sum;
    }

    /** An engine's summed PSS (or its RSS stand-in, whichever the sampler published), or null. */
    public Double processPss(String engine) {
        return value(HostMetrics.PROCESS_PSS, AttrKeys.ENGINE, engine);
    }

    /** Where {@link #processPss} came from: pss, rss, or null when there is no such figure. */
    public String processPssSource(String engine) {
        for (Point p : points.of(HostMetrics.PROCESS_PSS)) {
            if (engine.equals(p.attributes().get(AttrKeys.ENGINE))) {
                return p.attributes().get(AttrKeys.MEMORY_SOURCE);
            }
        }
        return null;
    }

    public Double processRss(String engine) {
        return value(HostMetrics.PROCESS_RSS, AttrKeys.ENGINE, engine);
    }
}
