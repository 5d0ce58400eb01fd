package io.tailwatch.core.host;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU utilization by mode from two readings of cumulative per-CPU tick counters: the CPUs' tick
 * deltas are summed per mode and divided by the sum over all modes, so the modes add up to 1 and no
 * tick rate is needed. macOS counters are 32-bit and wrap ({@code unsigned int cpu_ticks[]} in
 * mach/processor_info.h), so each CPU's delta is taken modulo 2^32 before summing; a 64-bit counter
 * (Linux) that went backwards makes the interval unknown and nothing is reported.
 */
public final class CpuUtilization {
    private CpuUtilization() {
    }

    /**
     * @param before ticks[cpu][mode] at the start of the interval
     * @param now    ticks[cpu][mode] at its end (same shape)
     * @param modes  the mode name of each column
     * @param from   first CPU of the group (inclusive)
     * @param to     last CPU of the group (exclusive)
     * @return utilization by mode in column order; empty when the interval is unknown or empty
     */
    public static <M> Map<M, Double> of(long[][] before, long[][] now, M[] modes, int from, int to, boolean wraps32) {
        if (before == null || now == null || before.length != now.length || from < 0 || to > now.length || from >= to) {
            return Map.of();
        }
        long[] delta = new long[modes.length];
        long total = 0;
        for (int cpu = from; cpu < to; cpu++) {
            if (before[cpu].length < modes.length || now[cpu].length < modes.length) {
                return Map.of();
            }
            for (int m = 0; m < modes.length; m++) {
                long d = now[cpu][m] - before[cpu][m];
                if (wraps32) {
                    d &= 0xFFFF_FFFFL;
                } else if (d < 0) {
                    return Map.of();
                }
                delta[m] += d;
                total += d;
            }
        }
        if (total <= 0) {
            return Map.of();
        }
        Map<M, Double> out = new LinkedHashMap<>();
        for (int m = 0; m < modes.length; m++) {
            out.put(modes[m], delta[m] / (double) total);
        }
        return out;
    }
}
