package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.List;

/** Checks for signals no OS tool prints (without sudo): each must lie within its documented range. */
public final class NativeInvariants {
    /** No single Mac or workstation draws a kilowatt; readings at or above it are impossible. */
    public static final double MAX_WATTS = 1000;

    private NativeInvariants() {
    }

    public static List<Check> of(HostSnapshot s) {
        List<Check> out = new ArrayList<>();
        out.add(Checks.inRange("tailwatch.memory.pressure.level", s.pressureLevel(), 0, 3, "", "0 normal, 1 warning, 2 critical"));
        Double used = s.memoryUsed();
        Double total = s.memoryTotal();
        if (used != null && total != null) {
            out.add(Checks.inRange("system.memory.usage{used} <= system.memory.limit", used, 0, total + 1, "B", "used <= total"));
        }
        out.add(Checks.inRange("tailwatch.thermal.pressure.level", s.thermalLevel(), 0, 5, "",
                "0 nominal ... 4 sleeping; no tool prints the notify state"));
        out.add(Checks.inRange("hw.temperature", s.temperature(), 0.001, 150.001, "Cel", "hottest sensor"));
        out.add(Checks.inRange("tailwatch.cpu.speed.limit", s.cpuSpeedLimit(), 0, 1.000001, "", "ratio of full speed"));
        out.add(Checks.inRange("tailwatch.memory.free.ratio", s.value(HostMetrics.MEMORY_FREE_RATIO), 0, 1.000001, "",
                "kernel free percentage / 100"));
        double sum = 0;
        boolean anyPower = false;
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.POWER) {
                anyPower = true;
                sum += p.value();
                out.add(Checks.inRange("hw.power{" + p.attributes().get(AttrKeys.HW_NAME) + "}", p.value(), 0, MAX_WATTS, "W",
                        "powermetrics needs sudo; range checked"));
            }
        }
        if (anyPower) {
            out.add(Checks.inRange("hw.power (sum of rails)", sum, 0, MAX_WATTS, "W", "0 <= power < 1 kW"));
        } else {
            out.add(Checks.inRange("hw.power", null, 0, MAX_WATTS, "W", "no power rail readable on this machine"));
        }
        out.add(Checks.inRange("hw.gpu.utilization", s.value(HostMetrics.GPU_UTILIZATION), 0, 1.000001, "",
                "active residency ratio"));
        out.add(Checks.inRange("tailwatch.gpu.frequency", s.value(HostMetrics.GPU_FREQUENCY), 1, 10e9, "Hz", "from DVFS table"));
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.PROCESS_RSS || p.metric() == HostMetrics.PROCESS_FOOTPRINT) {
                out.add(Checks.inRange(p.metric().name() + "{" + p.attributes().get(AttrKeys.ENGINE) + "}", p.value(), 1,
                        total == null ? Double.MAX_VALUE : total * 2, "B", "engine process found"));
            }
        }
        return out;
    }

    /** The lowest die temperature exported (a gated cluster's fixed 4.6-9.8 C is dropped below it). */
    static final double MIN_DIE_CELSIUS = 15;

    /**
     * The macOS figures no OS tool prints, with or without sudo (docs/macos.md, "Verify on your Mac"): ANE
     * residency (IOReport H11ANE state residencies; powermetrics gives the ANE's power, not its residency) and
     * the SMC die aggregates TCMb / TCMz (no tool reads SMC keys on Apple silicon). Each within its range, and the
     * average at most the maximum.
     */
    public static List<Check> macOnly(HostSnapshot s) {
        List<Check> out = new ArrayList<>();
        out.add(Checks.inRange("tailwatch.ane.residency", s.value(HostMetrics.ANE_RESIDENCY), 0, 1.000001, "",
                "busy share; no tool prints it (powermetrics: ANE power only)"));
        Double avg = s.value(HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_NAME, "cpu average");
        Double max = s.value(HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_NAME, "cpu maximum");
        out.add(Checks.inRange("hw.temperature{cpu average} (SMC TCMb)", avg, MIN_DIE_CELSIUS, 150.001, "Cel",
                "no tool prints SMC keys on Apple silicon"));
        out.add(Checks.inRange("hw.temperature{cpu maximum} (SMC TCMz)", max, MIN_DIE_CELSIUS, 150.001, "Cel",
                "no tool prints SMC keys on Apple silicon"));
        if (avg != null && max != null) {
            out.add(Checks.inRange("TCMb <= TCMz", avg, MIN_DIE_CELSIUS, max + 0.001, "Cel", "the average is at most the maximum"));
        }
        return out;
    }
}
