package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.macos.AcceleratorStatistics;
import io.tailwatch.metrics.AttrValues.GpuMemoryState;
import io.tailwatch.metrics.HostMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * macOS: the GPU's share of unified memory beside the tools that show it. The wired-limit setting
 * against {@code sysctl -n iogpu.wired_limit_mb}; Metal's working-set limit against that setting when
 * an operator raised it (Metal follows it), else against its invariant (more than half of total memory,
 * at most all of it); GPU memory in use and allocated against {@code ioreg -r -c IOAccelerator -d 1}.
 */
public final class GpuMemoryChecks {
    public static final List<String> WIRED_LIMIT = List.of("sysctl", "-n", "iogpu.wired_limit_mb");
    public static final List<String> IOREG = List.of("ioreg", "-r", "-c", "IOAccelerator", "-d", "1");
    public static final List<List<String>> TOOLS = List.of(WIRED_LIMIT, IOREG);
    static final double MIB = 1L << 20;
    /** Metal may round the raised limit; 2 % of it covers that, not a limit that ignores the setting. */
    static final double LIMIT_RELATIVE = 0.02;
    /** GPU memory moves between the sample and ioreg (a prompt allocates, a cache frees). */
    static final double USAGE_RELATIVE = 0.1;
    static final double USAGE_FLOOR = 256 * MIB;

    private GpuMemoryChecks() {
    }

    public static List<Check> checks(HostSnapshot s, Map<List<String>, String> outputs, Map<List<String>, String> errors) {
        List<Check> out = new ArrayList<>();
        Double wired = s.value(HostMetrics.GPU_WIRED_LIMIT);
        Double limit = s.gpuMemoryLimit();
        String sysctl = outputs.get(WIRED_LIMIT);
        Double setting = null;
        if (sysctl == null) {
            out.add(Checks.toolUnavailable("tailwatch.gpu.wired_limit", wired, "sysctl -n iogpu.wired_limit_mb",
                    errors.get(WIRED_LIMIT), "B"));
        } else {
            Double mb = number(sysctl);
            setting = mb == null || mb <= 0 ? null : mb * MIB;
            out.add(Checks.compare("tailwatch.gpu.wired_limit", wired, "sysctl -n iogpu.wired_limit_mb (0 = absent)",
                    setting, 0, "B"));
        }
        if (setting != null) {
            out.add(Checks.compareRelative("hw.gpu.memory.limit", limit, "sysctl -n iogpu.wired_limit_mb (raised: Metal follows it)",
                    setting, LIMIT_RELATIVE, MIB, "B"));
        } else {
            Double total = s.memoryTotal();
            out.add(total == null
                    ? Checks.inRange("hw.gpu.memory.limit", limit, 1, Double.MAX_VALUE, "B", "total memory unknown")
                    : Checks.inRange("hw.gpu.memory.limit", limit, total / 2, total + 1, "B",
                    "Metal's default: more than half of total memory, at most all of it"));
        }
        String ioreg = outputs.get(IOREG);
        Double inUse = s.value(HostMetrics.GPU_MEMORY_USAGE, GpuMemoryState.IN_USE);
        Double alloc = s.value(HostMetrics.GPU_MEMORY_USAGE, GpuMemoryState.ALLOCATED);
        String tool = "ioreg -r -c IOAccelerator -d 1";
        AcceleratorStatistics stats = null;
        String why = errors.get(IOREG);
        if (ioreg != null) {
            try {
                stats = AcceleratorStatistics.of(AcceleratorStatistics.parseIoreg(ioreg));
            } catch (IOException | ArithmeticException e) {
                why = "PerformanceStatistics not readable: " + e.getMessage();
            }
        }
        if (stats == null) {
            out.add(Checks.toolUnavailable("hw.gpu.memory.usage{in_use}", inUse, tool, why, "B"));
            out.add(Checks.toolUnavailable("hw.gpu.memory.usage{allocated}", alloc, tool, why, "B"));
        } else {
            out.add(Checks.compareRelative("hw.gpu.memory.usage{in_use}", inUse, tool + " \"" + AcceleratorStatistics.IN_USE + "\"",
                    toDouble(stats.inUseBytes()), USAGE_RELATIVE, USAGE_FLOOR, "B"));
            out.add(Checks.compareRelative("hw.gpu.memory.usage{allocated}", alloc, tool + " \"" + AcceleratorStatistics.ALLOCATED
                    + "\"", toDouble(stats.allocatedBytes()), USAGE_RELATIVE, USAGE_FLOOR, "B"));
        }
        return out;
    }

    private static Double toDouble(Long v) {
        return v == null ? null : v.doubleValue();
    }

    private static Double number(String text) {
        try {
            return Double.parseDouble(text.strip().toLowerCase(Locale.ROOT));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
