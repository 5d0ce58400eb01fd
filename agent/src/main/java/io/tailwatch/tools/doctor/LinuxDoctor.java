package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.linux.Sysinfo;
import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.AttrValues.LoadWindow;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.AttrValues.PsiKind;
import io.tailwatch.metrics.AttrValues.PsiWindow;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Linux cross-checks against paths that do not share the samplers' reads: {@code free -b -w} field by
 * field, {@code sysinfo(2)}, {@code vmstat -s}, and /proc/stat and the PSI files parsed here. Each is
 * read just before and just after the sample ({@link LinuxReads}), so the tolerance of a field is what
 * it moved between those two reads: a counter must lie between them; a level within the movement of
 * either side of them, plus {@link #MEMORY_FLOOR} for memory (free rounds to KiB and pages move while
 * the tool starts). CPU utilization must lie within the bounds the two bracketing reads of /proc/stat
 * around each of the sampler's two reads allow. A field read as 0, or a few % off, fails on any host
 * where it is more than the floor.
 */
public final class LinuxDoctor {
    /** 256 pages of 4 KiB: allowed beside the measured movement for memory figures. */
    public static final double MEMORY_FLOOR = 1L << 20;
    /** /proc/loadavg prints two decimals. */
    static final double LOAD_FLOOR = 0.01;
    /** PSI averages are printed with two decimals of a percent. */
    static final double PSI_FLOOR = 0.0001;

    private LinuxDoctor() {
    }

    /**
     * {@code statBefore1}/{@code statAfter1}: /proc/stat read just before and after the first sample (the
     * CPU sampler's baseline); {@code before}/{@code after}: everything read around the second, checked one.
     */
    public static List<Check> checks(HostSnapshot s, String statBefore1, String statAfter1, LinuxReads before,
                                     LinuxReads after) {
        List<Check> out = new ArrayList<>();
        free(s, before, after, out);
        sysinfo(s, before, after, out);
        cpu(s, statBefore1, statAfter1, before.stat(), after.stat(), out);
        pressure(s, before, after, out);
        paging(s, before, after, out);
        out.addAll(NativeInvariants.of(s));
        return out;
    }

    // ---- memory and swap ---------------------------------------------------------------------

    private static void free(HostSnapshot s, LinuxReads before, LinuxReads after, List<Check> out) {
        String tool = "free -b -w";
        Map<String, Long> b;
        Map<String, Long> a;
        try {
            b = parseFree(need(before.free(), before.freeError()));
            a = parseFree(need(after.free(), after.freeError()));
        } catch (IOException e) {
            out.add(Checks.toolUnavailable("system.memory.usage", s.memoryTotal(), tool, e.getMessage(), "B"));
            return;
        }
        out.add(level("system.memory.limit", s.memoryTotal(), tool + " (Mem total)", b, a, f -> f.get("Mem.total"), 0));
        out.add(level("system.memory.usage{used}", s.memoryUsed(), tool + " (Mem total - available)", b, a,
                f -> f.get("Mem.available") == null ? null : f.get("Mem.total") - f.get("Mem.available"), MEMORY_FLOOR));
        out.add(level("system.memory.usage{free}", s.value(HostMetrics.MEMORY_USAGE, MemoryState.FREE), tool + " (Mem free)",
                b, a, f -> f.get("Mem.free"), MEMORY_FLOOR));
        out.add(level("system.memory.usage{buffers}", s.value(HostMetrics.MEMORY_USAGE, MemoryState.BUFFERS),
                tool + " (Mem buffers)", b, a, f -> f.get("Mem.buffers"), MEMORY_FLOOR));
        out.add(level("system.memory.usage{cached}", s.value(HostMetrics.MEMORY_USAGE, MemoryState.CACHED),
                tool + " (Mem cache = Cached + SReclaimable)", b, a, f -> f.get("Mem.cache"), MEMORY_FLOOR));
        out.add(level("tailwatch.memory.available", s.memoryAvailable(), tool + " (Mem available)", b, a,
                f -> f.get("Mem.available"), MEMORY_FLOOR));
        out.add(level("system.paging.usage{used}+{free}", s.swapTotal(), tool + " (Swap total)", b, a,
                f -> f.get("Swap.total"), 0));
        out.add(level("system.paging.usage{used}", s.swapUsed(), tool + " (Swap used)", b, a, f -> f.get("Swap.used"),
                MEMORY_FLOOR));
        out.add(level("system.paging.usage{free}", s.swapFree(), tool + " (Swap free)", b, a, f -> f.get("Swap.free"),
                MEMORY_FLOOR));
    }

    private static void sysinfo(HostSnapshot s, LinuxReads before, LinuxReads after, List<Check> out) {
        String tool = "sysinfo(2)";
        if (before.sysinfo() == null || after.sysinfo() == null) {
            String why = before.sysinfo() == null ? before.sysinfoError() : after.sysinfoError();
            out.add(Checks.toolUnavailable("system.memory.limit", s.memoryTotal(), tool, why, "B"));
            return;
        }
        Sysinfo b = before.sysinfo();
        Sysinfo a = after.sysinfo();
        out.add(bracket("system.memory.limit", s.memoryTotal(), tool + " (totalram)", (double) b.totalRam(),
                (double) a.totalRam(), 0, "B"));
        out.add(bracket("system.memory.usage{free}", s.value(HostMetrics.MEMORY_USAGE, MemoryState.FREE), tool + " (freeram)",
                (double) b.freeRam(), (double) a.freeRam(), MEMORY_FLOOR, "B"));
        out.add(bracket("system.memory.usage{buffers}", s.value(HostMetrics.MEMORY_USAGE, MemoryState.BUFFERS),
                tool + " (bufferram)", (double) b.bufferRam(), (double) a.bufferRam(), MEMORY_FLOOR, "B"));
        out.add(bracket("system.paging.usage{used}+{free}", s.swapTotal(), tool + " (totalswap)", (double) b.totalSwap(),
                (double) a.totalSwap(), 0, "B"));
        out.add(bracket("system.paging.usage{free}", s.swapFree(), tool + " (freeswap)", (double) b.freeSwap(),
                (double) a.freeSwap(), MEMORY_FLOOR, "B"));
        LoadWindow[] windows = LoadWindow.values();
        for (int i = 0; i < windows.length; i++) {
            out.add(bracket("tailwatch.cpu.load_average{" + windows[i].value() + "}",
                    s.value(HostMetrics.LOAD_AVERAGE, windows[i]), tool + " (loads[" + i + "] / 65536)", b.loads()[i],
                    a.loads()[i], LOAD_FLOOR, ""));
        }
    }

    // ---- CPU -----------------------------------------------------------------------------------

    /** /proc/stat columns of each mode, parsed here: user nice system idle iowait irq softirq steal. */
    static Map<CpuMode, Long> ticks(String stat) throws IOException {
        if (stat == null) {
            throw new IOException("/proc/stat: unreadable");
        }
        String first = stat.lines().findFirst().orElse("");
        String[] f = first.trim().split(" +");
        if (f.length < 5 || !f[0].equals("cpu")) {
            throw new IOException("/proc/stat: first line is not the cpu total: '" + first + "'");
        }
        long[] c = new long[8];
        for (int i = 1; i < f.length && i <= 8; i++) {
            c[i - 1] = Long.parseLong(f[i]);
        }
        Map<CpuMode, Long> m = new HashMap<>();
        m.put(CpuMode.USER, c[0]);
        m.put(CpuMode.NICE, c[1]);
        m.put(CpuMode.SYSTEM, c[2]);
        m.put(CpuMode.IDLE, c[3]);
        m.put(CpuMode.IOWAIT, c[4]);
        m.put(CpuMode.INTERRUPT, c[5] + c[6]);
        m.put(CpuMode.STEAL, c[7]);
        return m;
    }

    private static long total(Map<CpuMode, Long> t) {
        return t.values().stream().mapToLong(Long::longValue).sum();
    }

    private static void cpu(HostSnapshot s, String b1, String a1, String b2, String a2, List<Check> out) {
        String tool = "/proc/stat read before and after each sample";
        Map<CpuMode, Long> tb1;
        Map<CpuMode, Long> ta1;
        Map<CpuMode, Long> tb2;
        Map<CpuMode, Long> ta2;
        try {
            tb1 = ticks(b1);
            ta1 = ticks(a1);
            tb2 = ticks(b2);
            ta2 = ticks(a2);
        } catch (IOException | NumberFormatException e) {
            out.add(Checks.toolUnavailable("system.cpu.utilization", null, tool, e.getMessage(), ""));
            return;
        }
        // The sampler's window starts inside [b1, a1] and ends inside [b2, a2].
        double shortest = Math.max(1, total(tb2) - total(ta1));
        double longest = Math.max(1, total(ta2) - total(tb1));
        for (CpuMode mode : CpuMode.values()) {
            double lo = Math.max(0, tb2.get(mode) - ta1.get(mode)) / longest;
            double hi = Math.min(1, Math.max(0, ta2.get(mode) - tb1.get(mode)) / shortest);
            Double nativeValue = s.value(HostMetrics.CPU_UTILIZATION, mode);
            String signal = "system.cpu.utilization{" + mode.value() + "}";
            Check c = Checks.compare(signal, nativeValue, tool, (lo + hi) / 2, (hi - lo) / 2 + 1e-9, "");
            out.add(new Check(c.signal(), c.nativeValue(), c.tool(), c.toolValue(),
                    String.format(Locale.ROOT, "between %.4f and %.4f (the reads around the sampler's)", lo, hi),
                    c.verdict(), c.note()));
        }
    }

    // ---- pressure and paging ----------------------------------------------------------------------

    /** One PSI file parsed here: "some.avg10", "full.total", ... (averages in percent, totals in us). */
    static Map<String, Double> psi(String text) {
        Map<String, Double> m = new HashMap<>();
        if (text == null) {
            return m;
        }
        for (String line : text.split("\n")) {
            String[] f = line.trim().split(" +");
            for (int i = 1; i < f.length; i++) {
                int eq = f[i].indexOf('=');
                if (eq > 0) {
                    try {
                        m.put(f[0] + "." + f[i].substring(0, eq), Double.parseDouble(f[i].substring(eq + 1)));
                    } catch (NumberFormatException e) {
                        // left out: the check then says the tool side is absent
                    }
                }
            }
        }
        return m;
    }

    private static void pressure(HostSnapshot s, LinuxReads before, LinuxReads after, List<Check> out) {
        psiChecks(s, "memory", HostMetrics.PRESSURE_STALL, HostMetrics.MEMORY_PRESSURE_STALL_TIME, PsiKind.values(),
                before, after, out);
        psiChecks(s, "cpu", HostMetrics.CPU_PRESSURE_STALL, HostMetrics.CPU_PRESSURE_STALL_TIME,
                new PsiKind[] {PsiKind.SOME}, before, after, out);
        psiChecks(s, "io", HostMetrics.IO_PRESSURE_STALL, HostMetrics.IO_PRESSURE_STALL_TIME, PsiKind.values(),
                before, after, out);
    }

    private static void psiChecks(HostSnapshot s, String resource, MetricDef stall, MetricDef stallTime, PsiKind[] kinds,
                                  LinuxReads before, LinuxReads after, List<Check> out) {
        String file = "/proc/pressure/" + resource;
        String bt = before.pressure().get(resource);
        String at = after.pressure().get(resource);
        if (bt == null && at == null && s.value(stall, PsiKind.SOME, AttrKeys.PSI_WINDOW, "avg10") == null) {
            out.add(new Check(stall.name(), "absent", file, "absent", "-", Check.Verdict.UNAVAILABLE,
                    "no PSI on this kernel"));
            return;
        }
        Map<String, Double> b = psi(bt);
        Map<String, Double> a = psi(at);
        for (PsiKind kind : kinds) {
            for (PsiWindow w : PsiWindow.values()) {
                String key = kind.value() + "." + w.value();
                out.add(bracket(stall.name() + "{" + kind.value() + "," + w.value() + "}", s.value(stall, kind, AttrKeys.PSI_WINDOW, w.value()),
                        file + " (" + kind.value() + " " + w.value() + " / 100)", scaled(b.get(key), 0.01),
                        scaled(a.get(key), 0.01), PSI_FLOOR, ""));
            }
            String key = kind.value() + ".total";
            out.add(counter(stallTime.name() + "{" + kind.value() + "}", s.value(stallTime, kind),
                    file + " (" + kind.value() + " total / 1e6)", scaled(b.get(key), 1e-6), scaled(a.get(key), 1e-6), "s"));
        }
    }

    private static void paging(HostSnapshot s, LinuxReads before, LinuxReads after, List<Check> out) {
        String tool = "vmstat -s";
        if (before.vmstat() == null || after.vmstat() == null) {
            out.add(Checks.toolUnavailable("system.paging.operations", s.value(HostMetrics.PAGING_OPERATIONS, PagingDirection.IN),
                    tool, before.vmstat() == null ? before.vmstatError() : after.vmstatError(), ""));
            return;
        }
        Map<String, Long> b = parseVmstat(before.vmstat());
        Map<String, Long> a = parseVmstat(after.vmstat());
        for (PagingDirection d : PagingDirection.values()) {
            String line = "pages swapped " + d.value();
            out.add(counter("system.paging.operations{" + d.value() + "}", s.value(HostMetrics.PAGING_OPERATIONS, d),
                    tool + " (" + line + ")", d(b.get(line)), d(a.get(line)), ""));
        }
    }

    /** {@code vmstat -s}: "   1234 pages swapped in" -> "pages swapped in" = 1234. */
    static Map<String, Long> parseVmstat(String text) {
        Map<String, Long> m = new HashMap<>();
        for (String line : text.split("\\R")) {
            String t = line.trim();
            int sp = t.indexOf(' ');
            if (sp > 0) {
                try {
                    m.put(t.substring(sp + 1).trim(), Long.parseLong(t.substring(0, sp)));
                } catch (NumberFormatException e) {
                    // not a count line
                }
            }
        }
        return m;
    }

    // ---- the brackets ---------------------------------------------------------------------------

    /**
     * A level read at some moment between the tool's two reads: it agrees within the movement measured
     * between them, on either side, plus {@code floor}.
     */
    static Check bracket(String signal, Double nativeValue, String tool, Double before, Double after, double floor,
                         String unit) {
        if (before == null || after == null) {
            return Checks.compare(signal, nativeValue, tool, before == null ? after : before, floor, unit);
        }
        double moved = Math.abs(after - before);
        double lo = Math.min(before, after) - moved - floor;
        double hi = Math.max(before, after) + moved + floor;
        Check c = Checks.compare(signal, nativeValue, tool, (lo + hi) / 2, (hi - lo) / 2, unit);
        return new Check(c.signal(), c.nativeValue(), c.tool(),
                before.equals(after) ? Checks.format(before, unit) : Checks.format(before, unit) + " .. " + Checks.format(after, unit),
                "the reads' movement " + Checks.format(moved, unit) + " either side"
                        + (floor == 0 ? "" : ", + " + Checks.format(floor, unit)),
                c.verdict(), c.note());
    }

    /** A counter read between the tool's two reads lies between them. */
    static Check counter(String signal, Double nativeValue, String tool, Double before, Double after, String unit) {
        if (before == null || after == null) {
            return Checks.compare(signal, nativeValue, tool, before == null ? after : before, 0, unit);
        }
        double lo = Math.min(before, after);
        double hi = Math.max(before, after);
        Check c = Checks.compare(signal, nativeValue, tool, (lo + hi) / 2, (hi - lo) / 2 + 1e-9, unit);
        return new Check(c.signal(), c.nativeValue(), c.tool(),
                Checks.format(lo, unit) + " .. " + Checks.format(hi, unit), "between the two reads", c.verdict(), c.note());
    }

    private static Check level(String signal, Double nativeValue, String tool, Map<String, Long> before,
                               Map<String, Long> after, Function<Map<String, Long>, Long> field, double floor) {
        return bracket(signal, nativeValue, tool, d(field.apply(before)), d(field.apply(after)), floor, "B");
    }

    private static String need(String text, String error) throws IOException {
        if (text == null) {
            throw new IOException(error == null ? "no output" : error);
        }
        return text;
    }

    private static Double scaled(Double v, double factor) {
        return v == null ? null : v * factor;
    }

    private static Double d(Long v) {
        return v == null ? null : v.doubleValue();
    }

    /** {@code free -b [-w]}: "Mem.total", "Mem.buffers", "Mem.cache", "Swap.used", ... from the header's column names. */
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
}
