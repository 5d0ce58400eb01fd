package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.HostMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Linux cross-checks: the sampled memory and swap beside {@code free -b} and a fresh read of
 * /proc/meminfo. Totals must match exactly; each moving figure within
 * {@value #MOVING_TOLERANCE_PERCENT} % of the tool's own value, at least {@link #MOVING_FLOOR} bytes
 * (the tool runs moments after the sample).
 */
public final class LinuxDoctor {
    public static final double MOVING_TOLERANCE_PERCENT = 5;
    /** Pages that may move in the moment between the sample and the tool: 64 MiB. */
    public static final double MOVING_FLOOR = 64L << 20;
    /** Swap moves in pages; a small floor keeps an idle machine with tiny swap from flapping. */
    static final double SWAP_TOLERANCE_FLOOR = 16L << 20;

    private LinuxDoctor() {
    }

    public static List<Check> checks(HostSnapshot s, String freeOutput, String freeError, String meminfo, String meminfoError) {
        List<Check> out = new ArrayList<>();
        Double total = s.memoryTotal();
        Map<String, Long> free = null;
        String why = freeError;
        if (freeOutput != null) {
            try {
                free = parseFree(freeOutput);
            } catch (IOException e) {
                why = e.getMessage();
            }
        }
        String tool = "free -b";
        if (free == null) {
            out.add(Checks.toolUnavailable("system.memory.limit", total, tool, why, "B"));
        } else {
            out.add(Checks.compare("system.memory.limit", total, tool + " (Mem total)", d(free.get("Mem.total")), 0, "B"));
            out.add(moving("system.memory.usage{used}", s.memoryUsed(),
                    tool + " (Mem used = total - available in procps-ng 4)", d(free.get("Mem.used"))));
            out.add(moving("system.memory.usage{free}", s.value(HostMetrics.MEMORY_USAGE, MemoryState.FREE),
                    tool + " (Mem free)", d(free.get("Mem.free"))));
            Double cached = s.value(HostMetrics.MEMORY_USAGE, MemoryState.CACHED);
            Double buffers = s.value(HostMetrics.MEMORY_USAGE, MemoryState.BUFFERS);
            out.add(moving("system.memory.usage{cached}+{buffers}", cached == null || buffers == null ? null : cached + buffers,
                    tool + " (buff/cache)", d(free.get("Mem.buff/cache"))));
            out.add(moving("tailwatch.memory.available", s.memoryAvailable(), tool + " (Mem available)",
                    d(free.get("Mem.available"))));
            Double swapTotal = s.swapTotal();
            Long toolSwapTotal = free.get("Swap.total");
            out.add(Checks.compare("system.paging.usage{used}+{free}", swapTotal, tool + " (Swap total)", d(toolSwapTotal), 0, "B"));
            double swapTol = Math.max(SWAP_TOLERANCE_FLOOR,
                    toolSwapTotal == null ? 0 : toolSwapTotal * MOVING_TOLERANCE_PERCENT / 100);
            out.add(Checks.compare("system.paging.usage{used}", s.swapUsed(), tool + " (Swap used)", d(free.get("Swap.used")),
                    swapTol, "B"));
        }
        if (meminfo == null) {
            out.add(Checks.toolUnavailable("system.memory.limit", total, "/proc/meminfo", meminfoError, "B"));
        } else {
            Map<String, Long> m = meminfoKb(meminfo);
            out.add(Checks.compare("system.memory.limit", total, "/proc/meminfo (MemTotal)", kb(m.get("MemTotal")), 0, "B"));
            out.add(moving("tailwatch.memory.available", s.memoryAvailable(), "/proc/meminfo (MemAvailable)",
                    kb(m.get("MemAvailable"))));
        }
        out.addAll(NativeInvariants.of(s));
        return out;
    }

    private static Check moving(String signal, Double nativeValue, String tool, Double toolValue) {
        return Checks.compareRelative(signal, nativeValue, tool, toolValue, MOVING_TOLERANCE_PERCENT / 100, MOVING_FLOOR, "B");
    }

    private static Double d(Long v) {
        return v == null ? null : v.doubleValue();
    }

    private static Double kb(Long v) {
        return v == null ? null : v * 1024.0;
    }

    /** {@code free -b}: "Mem.total", "Mem.available", "Swap.used", ... from the header's column names. */
    public static Map<String, Long> parseFree(String text) throws IOException {
        String[] lines = text.split("\\R");
        String[] header = null;
        Map<String, Long> out = new HashMap<>();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            if (header == null) {
                header = line.split("\\s+");
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("free -b line " + (i + 1) + ": expected 'Mem:' or 'Swap:', got '" + line + "'");
            }
            String row = line.substring(0, colon);
            String[] f = line.substring(colon + 1).strip().split("\\s+");
            for (int j = 0; j < f.length && j < header.length; j++) {
                try {
                    out.put(row + "." + header[j], Long.parseLong(f[j]));
                } catch (NumberFormatException e) {
                    throw new IOException("free -b line " + (i + 1) + ": not a number in column " + header[j]);
                }
            }
        }
        if (!out.containsKey("Mem.total")) {
            throw new IOException("free -b: no 'Mem:' row with a 'total' column");
        }
        return out;
    }

    /** Independent of the sampler's parser on purpose: "Key: value kB" lines, values in kB. */
    static Map<String, Long> meminfoKb(String text) {
        Map<String, Long> m = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.split("[:\\s]+");
            if (f.length >= 2) {
                try {
                    m.put(f[0], Long.parseLong(f[1]));
                } catch (NumberFormatException e) {
                    // not a numeric line
                }
            }
        }
        return m;
    }
}
