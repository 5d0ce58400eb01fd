package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.macos.MacLevels;
import io.tailwatch.core.host.macos.MacToolText;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValue;
import io.tailwatch.metrics.AttrValues.MemoryPageState;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * macOS cross-checks: the native readings beside {@code sysctl}, {@code vm_stat},
 * {@code pmset -g therm} and {@code memory_pressure}. Fixed figures (total memory, swap size, the
 * pressure level's enum) must match exactly; each page count within {@value #MOVING_TOLERANCE_PERCENT} %
 * of the tool's own value, at least {@link #MOVING_FLOOR} bytes, because the tools run moments after
 * the sample.
 */
public final class MacDoctor {
    public static final double MOVING_TOLERANCE_PERCENT = 5;
    /** Pages that may move between the sample and the tool: 64 MiB (4096 pages of 16 KiB). */
    public static final double MOVING_FLOOR = 64L << 20;
    /** memory_pressure prints whole percent and runs a moment later. */
    public static final double FREE_RATIO_TOLERANCE = 0.05;
    /** vm.swapusage text is rounded to 0.01 MiB. */
    static final double SWAP_TOTAL_TOLERANCE = 1L << 20;
    static final double SWAP_USED_FLOOR = 64L << 20;

    public static final List<String> HW_MEMSIZE = List.of("sysctl", "-n", "hw.memsize");
    public static final List<String> SWAPUSAGE = List.of("sysctl", "vm.swapusage");
    public static final List<String> PRESSURE_LEVEL = List.of("sysctl", "-n", "kern.memorystatus_vm_pressure_level");
    public static final List<String> VM_STAT = List.of("vm_stat");
    public static final List<String> PMSET_THERM = List.of("pmset", "-g", "therm");
    public static final List<String> MEMORY_PRESSURE = List.of("memory_pressure");
    static final String THERMAL_NOTIFY_NAME = "com.apple.system.thermalpressurelevel";
    public static final List<String> NOTIFYUTIL_THERMAL = List.of("notifyutil", "-g", THERMAL_NOTIFY_NAME);
    public static final List<List<String>> TOOLS = List.of(HW_MEMSIZE, SWAPUSAGE, PRESSURE_LEVEL, VM_STAT, PMSET_THERM,
            MEMORY_PRESSURE, NOTIFYUTIL_THERMAL);
    /**
     * Only with {@code --with-sudo}: one 1-second powermetrics sample. {@code sudo -n} never asks
     * for a password (run {@code sudo -v} first); without cached credentials the check shows n/a.
     */
    public static final List<String> POWERMETRICS = List.of("sudo", "-n", "powermetrics", "--samplers",
            "cpu_power,gpu_power", "-i", "1000", "-n", "1");
    /** powermetrics samples a different second than tailwatch: power moves that much between windows. */
    static final double POWER_RELATIVE = 0.5;
    static final double POWER_FLOOR_WATTS = 1.0;
    static final double GPU_FREQ_RELATIVE = 0.25;
    static final double GPU_FREQ_FLOOR_HZ = 100e6;

    private MacDoctor() {
    }

    /** {@code outputs}: each tool's text by command; {@code errors}: why a tool gave none. */
    public static List<Check> checks(HostSnapshot s, Map<List<String>, String> outputs, Map<List<String>, String> errors) {
        List<Check> out = new ArrayList<>();
        Double total = s.memoryTotal();

        String memsize = outputs.get(HW_MEMSIZE);
        if (memsize == null) {
            out.add(Checks.toolUnavailable("system.memory.limit", total, "sysctl -n hw.memsize", errors.get(HW_MEMSIZE), "B"));
        } else {
            out.add(Checks.compare("system.memory.limit", total, "sysctl -n hw.memsize", number(memsize), 0, "B"));
        }

        String vmText = outputs.get(VM_STAT);
        MacToolText.VmStat vm = null;
        String vmWhy = errors.get(VM_STAT);
        if (vmText != null) {
            try {
                vm = MacToolText.vmStat(vmText);
            } catch (IOException e) {
                vmWhy = e.getMessage();
            }
        }
        if (vm == null) {
            out.add(Checks.toolUnavailable("system.memory.usage", null, "vm_stat", vmWhy, "B"));
        } else {
            Long free = vm.bytes("Pages free");
            Long spec = vm.bytes("Pages speculative");
            // The kernel's free count includes speculative pages; vm_stat prints them apart.
            out.add(state(s, MemoryState.FREE, "vm_stat (free + speculative)",
                    free == null || spec == null ? null : (double) (free + spec)));
            out.add(state(s, MemoryPageState.ACTIVE, "vm_stat (Pages active)", dbl(vm.bytes("Pages active"))));
            out.add(state(s, MemoryPageState.INACTIVE, "vm_stat (Pages inactive)", dbl(vm.bytes("Pages inactive"))));
            out.add(state(s, MemoryPageState.WIRED, "vm_stat (Pages wired down)", dbl(vm.bytes("Pages wired down"))));
            out.add(state(s, MemoryPageState.COMPRESSED, "vm_stat (Pages occupied by compressor)",
                    dbl(vm.bytes("Pages occupied by compressor"))));
            out.add(state(s, MemoryState.CACHED, "vm_stat (File-backed pages)", dbl(vm.bytes("File-backed pages"))));
            // The derived figures, rebuilt from vm_stat's own lines. vm_stat prints "Pages free" as
            // free_count - speculative_count, so free + file-backed + purgeable counts each
            // speculative page once (in file-backed), like the sampler.
            Long anon = vm.bytes("Anonymous pages");
            Long purgeable = vm.bytes("Pages purgeable");
            Long wired = vm.bytes("Pages wired down");
            Long occupied = vm.bytes("Pages occupied by compressor");
            Long fileBacked = vm.bytes("File-backed pages");
            out.add(state(s, MemoryState.USED, "vm_stat (anonymous - purgeable + wired + occupied by compressor)",
                    anon == null || purgeable == null || wired == null || occupied == null ? null
                            : (double) (Math.max(0, anon - purgeable) + wired + occupied)));
            out.add(Checks.compareRelative("tailwatch.memory.available", s.memoryAvailable(),
                    "vm_stat (free + file-backed + purgeable)",
                    free == null || fileBacked == null || purgeable == null ? null : (double) (free + fileBacked + purgeable),
                    MOVING_TOLERANCE_PERCENT / 100, MOVING_FLOOR, "B"));
        }

        String swapText = outputs.get(SWAPUSAGE);
        MacToolText.SwapUsage swap = null;
        String swapWhy = errors.get(SWAPUSAGE);
        if (swapText != null) {
            try {
                swap = MacToolText.swapUsage(swapText);
            } catch (IOException e) {
                swapWhy = e.getMessage();
            }
        }
        if (swap == null) {
            out.add(Checks.toolUnavailable("system.paging.usage", s.swapUsed(), "sysctl vm.swapusage", swapWhy, "B"));
        } else {
            out.add(Checks.compare("system.paging.usage{used}+{free}", s.swapTotal(), "sysctl vm.swapusage (total)",
                    (double) swap.total(), SWAP_TOTAL_TOLERANCE, "B"));
            out.add(Checks.compare("system.paging.usage{used}", s.swapUsed(), "sysctl vm.swapusage (used)", (double) swap.used(),
                    Math.max(SWAP_USED_FLOOR, swap.total() * MOVING_TOLERANCE_PERCENT / 100), "B"));
        }

        String level = outputs.get(PRESSURE_LEVEL);
        if (level == null) {
            out.add(Checks.toolUnavailable("tailwatch.memory.pressure.level", s.pressureLevel(),
                    "sysctl -n kern.memorystatus_vm_pressure_level", errors.get(PRESSURE_LEVEL), ""));
        } else {
            Double tool;
            String note = null;
            try {
                Double raw = number(level);
                tool = raw == null ? null : (double) MacLevels.memoryPressure(raw.longValue());
            } catch (IOException e) {
                tool = null;
                note = e.getMessage();
            }
            Check c = Checks.compare("tailwatch.memory.pressure.level", s.pressureLevel(),
                    "sysctl -n kern.memorystatus_vm_pressure_level (1/2/4 -> 0/1/2)", tool, 0, "");
            out.add(note == null ? c : new Check(c.signal(), c.nativeValue(), c.tool(), c.toolValue(), c.tolerance(),
                    c.verdict(), note));
        }

        String mp = outputs.get(MEMORY_PRESSURE);
        Double percent = null;
        String mpWhy = errors.get(MEMORY_PRESSURE);
        if (mp != null) {
            try {
                percent = MacToolText.memoryPressureFreePercent(mp) / 100.0;
            } catch (IOException e) {
                mpWhy = e.getMessage();
            }
        }
        Double ratio = s.value(HostMetrics.MEMORY_FREE_RATIO);
        out.add(percent == null
                ? Checks.toolUnavailable("tailwatch.memory.free.ratio", ratio, "memory_pressure", mpWhy, "")
                : Checks.compare("tailwatch.memory.free.ratio", ratio, "memory_pressure (free percentage / 100)", percent,
                        FREE_RATIO_TOLERANCE, ""));

        String therm = outputs.get(PMSET_THERM);
        if (therm == null) {
            out.add(Checks.toolUnavailable("tailwatch.cpu.speed.limit", s.cpuSpeedLimit(), "pmset -g therm",
                    errors.get(PMSET_THERM), ""));
        } else {
            Long limit = MacToolText.pmsetTherm(therm).cpuPowerStatus().get("CPU_Speed_Limit");
            out.add(Checks.compare("tailwatch.cpu.speed.limit", s.cpuSpeedLimit(), "pmset -g therm (CPU_Speed_Limit / 100)",
                    limit == null ? null : limit / 100.0, 0.01, ""));
        }
        String notify = outputs.get(NOTIFYUTIL_THERMAL);
        String notifyWhy = errors.get(NOTIFYUTIL_THERMAL);
        Double notifyLevel = null;
        if (notify != null) {
            try {
                notifyLevel = (double) MacToolText.notifyState(notify, THERMAL_NOTIFY_NAME);
            } catch (IOException e) {
                notifyWhy = e.getMessage();
            }
        }
        out.add(notifyLevel == null
                ? Checks.toolUnavailable("tailwatch.thermal.pressure.level", s.thermalLevel(),
                        "notifyutil -g " + THERMAL_NOTIFY_NAME, notifyWhy, "")
                : Checks.compare("tailwatch.thermal.pressure.level", s.thermalLevel(),
                        "notifyutil -g " + THERMAL_NOTIFY_NAME, notifyLevel, 0, ""));

        if (outputs.containsKey(POWERMETRICS) || errors.containsKey(POWERMETRICS)) {
            out.addAll(powermetrics(s, outputs.get(POWERMETRICS), errors.get(POWERMETRICS)));
        }
        out.addAll(NativeInvariants.of(s));
        out.addAll(NativeInvariants.macOnly(s));
        return out;
    }

    /** tailwatch's rails and GPU frequency beside one powermetrics sample (--with-sudo only). */
    static List<Check> powermetrics(HostSnapshot s, String text, String error) {
        String tool = "sudo powermetrics --samplers cpu_power,gpu_power";
        MacToolText.PowerMetrics pm = null;
        String why = error;
        if (text != null) {
            try {
                pm = MacToolText.powermetrics(text);
            } catch (IOException e) {
                why = e.getMessage();
            }
        }
        List<Check> out = new ArrayList<>();
        if (pm == null) {
            out.add(Checks.toolUnavailable("hw.power", s.power("cpu"), tool, why, "W"));
            return out;
        }
        for (String rail : List.of("cpu", "gpu", "ane", "dram")) {
            Double tool1 = pm.wattsByRail().get(rail);
            if (tool1 == null) {
                continue;
            }
            out.add(Checks.compareRelative("hw.power{" + rail + source(s, rail) + "}", s.power(rail), tool + " ("
                    + rail.toUpperCase(java.util.Locale.ROOT) + " Power)", tool1, POWER_RELATIVE, POWER_FLOOR_WATTS, "W"));
        }
        out.add(Checks.compareRelative("tailwatch.gpu.frequency", s.value(HostMetrics.GPU_FREQUENCY),
                tool + " (GPU HW active frequency)", pm.gpuHz(), GPU_FREQ_RELATIVE, GPU_FREQ_FLOOR_HZ, "Hz"));
        return out;
    }

    /** ", clpc estimated" and the like: where tailwatch's figure of a rail comes from, for the check's name. */
    static String source(HostSnapshot s, String rail) {
        for (io.tailwatch.metrics.Point p : s.points()) {
            if (p.metric() == HostMetrics.POWER && rail.equals(p.attributes().get(io.tailwatch.metrics.AttrKeys.HW_NAME))) {
                String src = p.attributes().get(io.tailwatch.metrics.AttrKeys.RAIL_SOURCE);
                String ex = p.attributes().get(io.tailwatch.metrics.AttrKeys.POWER_EXACTNESS);
                return src == null ? "" : ", " + src + (ex == null ? "" : " " + ex);
            }
        }
        return "";
    }

    /** Compares one memory state (a system.memory.usage or a macOS page state) with the tool's figure. */
    private static Check state(HostSnapshot s, AttrValue state, String tool, Double toolValue) {
        MetricDef metric = state instanceof MemoryPageState ? HostMetrics.MEMORY_PAGE_USAGE : HostMetrics.MEMORY_USAGE;
        return Checks.compareRelative(metric.name() + "{" + state.value() + "}", s.value(metric, state), tool, toolValue,
                MOVING_TOLERANCE_PERCENT / 100, MOVING_FLOOR, "B");
    }

    private static Double dbl(Long v) {
        return v == null ? null : v.doubleValue();
    }

    private static Double number(String text) {
        try {
            return Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
