package io.tailwatch.core.kv;

import java.util.Map;
import java.util.TreeMap;

/**
 * The GPU memory of a running Mac as {@code kv-budget --live} shows it: the working-set limit (Metal's
 * {@code recommendedMaxWorkingSetSize}), the graphics memory each engine's processes hold (TASK_VM_INFO
 * graphics ledgers, summed over the engine's process tree) and what is left. A figure that was not read is
 * null (Linux has neither), never 0; an engine without a graphics figure is not in {@code engines}.
 *
 * @param source         where the figures come from, for the reader ("the running agent at URL", "this host")
 * @param limitBytes     the GPU working-set limit
 * @param availableBytes available memory
 * @param engines        graphics bytes by engine name
 */
public record GpuMemoryNow(String source, Long limitBytes, Long availableBytes, Map<String, Long> engines) {
    public GpuMemoryNow {
        engines = java.util.Collections.unmodifiableMap(new TreeMap<>(engines));
    }

    /** The engines' graphics memory together; null when no engine has the figure. */
    public Long enginesBytes() {
        return engines.isEmpty() ? null : engines.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * What the engines' graphics memory leaves of the limit and available memory, in bytes and in tokens of
     * {@code sizing}'s KV cache ({@link KvPlan#headroom}: the smaller of the GPU left and available memory
     * binds); its figures are null where the inputs are.
     */
    public KvPlan.Headroom headroom(KvPlan.Sizing sizing) {
        Long engines = enginesBytes();
        return KvPlan.headroom((double) sizing.bytesPerToken(), null, false, null, toDouble(limitBytes), toDouble(availableBytes),
                toDouble(engines));
    }

    private static Double toDouble(Long v) {
        return v == null ? null : v.doubleValue();
    }
}
