package io.tailwatch.daemon.status;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.SamplerResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The host part of /api/v1/status: sizes in bytes, unknown signals left out. */
public final class HostStatus {
    /** How a frozen power rail reads on the status, the page and the dashboards. */
    public static final String FROZEN_TEXT = io.tailwatch.core.host.PowerSources.FROZEN_TEXT;
    private HostStatus() {
    }

    public static Map<String, Object> of(HostSnapshot s) {
        return of(s, null);
    }

    /**
     * The host part, with paging activity (pages swapped in and out per second) over the interval from
     * {@code previous} to {@code s}; left out when either reading lacks the counter, the interval is not
     * positive or the counter went back (a reset), so unknown never reads as 0.
     */
    public static Map<String, Object> of(HostSnapshot s, HostSnapshot previous) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("sampled_at", s.at());
        Map<String, Object> mem = new LinkedHashMap<>();
        mem.put("total_bytes", asLong(s.memoryTotal()));
        mem.put("available_bytes", asLong(s.memoryAvailable()));
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.MEMORY_USAGE) {
                mem.put(p.attributes().get(AttrKeys.MEMORY_STATE) + "_bytes", (long) p.value());
            } else if (p.metric() == HostMetrics.MEMORY_PAGE_USAGE) {
                mem.put(p.attributes().get(AttrKeys.MEMORY_PAGE_STATE) + "_bytes", (long) p.value());
            }
        }
        mem.put("free_ratio", s.value(HostMetrics.MEMORY_FREE_RATIO));
        mem.put("pressure_level", asLong(s.pressureLevel()));
        m.put("memory", mem);
        // The GPU's share of unified memory (macOS): the working-set limit and what GPU work holds.
        Map<String, Object> gpu = new LinkedHashMap<>();
        gpu.put("limit_bytes", asLong(s.gpuMemoryLimit()));
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.GPU_MEMORY_USAGE) {
                gpu.put(p.attributes().get(AttrKeys.GPU_MEMORY_STATE) + "_bytes", (long) p.value());
            }
        }
        gpu.put("wired_limit_bytes", asLong(s.value(HostMetrics.GPU_WIRED_LIMIT)));
        m.put("gpu_memory", gpu);
        Map<String, Object> swap = new LinkedHashMap<>();
        swap.put("used_bytes", asLong(s.swapUsed()));
        swap.put("free_bytes", asLong(s.swapFree()));
        swap.put("total_bytes", asLong(s.swapTotal()));
        m.put("swap", swap);
        Map<String, Object> paging = new LinkedHashMap<>();
        for (PagingDirection direction : PagingDirection.values()) {
            Double rate = pagingRate(s, previous, direction);
            if (rate != null) {
                paging.put(direction.value() + "_per_second", rate);
            }
        }
        m.put("paging", paging);
        Map<String, Object> thermal = new LinkedHashMap<>();
        thermal.put("pressure_level", asLong(s.thermalLevel()));
        thermal.put("temperature_celsius", s.temperature());
        thermal.put("cpu_speed_limit", s.cpuSpeedLimit());
        // Every readable sensor (SMC die sensors on macOS, thermal zones on Linux), at most the samplers' bound.
        List<Map<String, Object>> sensors = new ArrayList<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.THERMAL_TEMPERATURE) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("id", p.attributes().get(AttrKeys.HW_ID));
                x.put("name", p.attributes().get(AttrKeys.HW_NAME));
                x.put("celsius", p.value());
                sensors.add(x);
            }
        }
        if (!sensors.isEmpty()) {
            thermal.put("sensors", sensors);
        }
        m.put("thermal", thermal);
        // Fans (macOS SMC): speed and the fan's own maximum; a Mac without fans has none.
        Map<String, Map<String, Object>> fans = new java.util.TreeMap<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.FAN_SPEED || p.metric() == HostMetrics.FAN_SPEED_LIMIT) {
                Map<String, Object> f = fans.computeIfAbsent(p.attributes().get(AttrKeys.HW_ID), id -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("id", id);
                    x.put("name", p.attributes().get(AttrKeys.HW_NAME));
                    return x;
                });
                f.put(p.metric() == HostMetrics.FAN_SPEED ? "rpm" : "max_rpm", p.value());
            }
        }
        if (!fans.isEmpty()) {
            m.put("fans", new ArrayList<>(fans.values()));
        }
        Map<String, Object> power = new LinkedHashMap<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.POWER) {
                power.put(p.attributes().get(AttrKeys.HW_NAME) + "_watts", p.value());
            }
        }
        m.put("power", power);
        // The whole machine (SMC PSTR): there even while macOS froze the rails.
        Double system = s.value(HostMetrics.HOST_POWER);
        if (system != null) {
            m.put("system_power_watts", system);
        }
        Map<String, Object> battery = new LinkedHashMap<>();
        Double charge = s.value(HostMetrics.BATTERY_CHARGE);
        Double batteryPower = s.value(HostMetrics.BATTERY_POWER);
        Double adapter = s.value(HostMetrics.POWER_SUPPLY_LIMIT);
        if (charge != null) {
            battery.put("charge_ratio", charge);
        }
        if (batteryPower != null) {
            battery.put("power_watts", batteryPower);
        }
        if (adapter != null) {
            battery.put("adapter_watts", adapter);
        }
        if (!battery.isEmpty()) {
            m.put("battery", battery);
        }
        Map<String, String> sources = io.tailwatch.core.host.PowerSources.of(s, io.tailwatch.core.host.platform.HostSources.isMac());
        if (!sources.isEmpty()) {
            m.put("power_sources", sources);
        }
        // Rails whose counter macOS stopped: named with why, so no reader takes the missing figure for 0 W.
        Map<String, Object> unavailable = new java.util.TreeMap<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.POWER_RAIL_STATE
                    && io.tailwatch.metrics.AttrValues.RailStatus.FROZEN.value().equals(p.attributes().get(AttrKeys.RAIL_STATUS))) {
                unavailable.put(p.attributes().get(AttrKeys.HW_NAME), FROZEN_TEXT);
            }
        }
        if (!unavailable.isEmpty()) {
            m.put("power_unavailable", unavailable);
        }
        // CPU time by mode over the last interval (ratios that add up to 1); busy is what is neither idle
        // nor waiting for I/O. Absent until the sampler has two readings to compare.
        Map<String, Object> cpu = new LinkedHashMap<>();
        double idle = 0;
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.CPU_UTILIZATION) {
                String mode = p.attributes().get(AttrKeys.CPU_MODE);
                cpu.put(mode + "_ratio", p.value());
                if (mode.equals(CpuMode.IDLE.value()) || mode.equals(CpuMode.IOWAIT.value())) {
                    idle += p.value();
                }
            }
        }
        if (!cpu.isEmpty()) {
            cpu.put("busy_ratio", Math.max(0, 1 - idle));
        }
        m.put("cpu", cpu);
        List<Map<String, Object>> procs = new ArrayList<>();
        Map<String, Map<String, Object>> byEngine = new LinkedHashMap<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.PROCESS_FOOTPRINT || p.metric() == HostMetrics.PROCESS_RSS) {
                String engine = p.attributes().get(AttrKeys.ENGINE);
                Map<String, Object> e = byEngine.computeIfAbsent(engine, k -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("engine", k);
                    procs.add(x);
                    return x;
                });
                e.put(p.metric() == HostMetrics.PROCESS_FOOTPRINT ? "footprint_bytes" : "rss_bytes", (long) p.value());
            }
        }
        // The engine's share of the GPU over the last interval and the graphics memory its processes hold (macOS),
        // on the entry of an engine that has memory figures.
        for (Point p : s.points()) {
            boolean share = p.metric() == HostMetrics.PROCESS_GPU_UTILIZATION;
            if (share || p.metric() == HostMetrics.PROCESS_GPU_MEMORY) {
                Map<String, Object> e = byEngine.get(p.attributes().get(AttrKeys.ENGINE));
                if (e != null) {
                    e.put(share ? "gpu_utilization" : "gpu_memory_bytes", share ? (Object) p.value() : (Object) (long) p.value());
                }
            }
        }
        m.put("processes", procs);
        List<Map<String, Object>> samplers = new ArrayList<>();
        for (SamplerResult r : s.results().values()) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("name", r.name());
            x.put("success", r.success());
            x.put("duration_seconds", r.duration().toNanos() / 1e9);
            x.put("error", r.error());
            samplers.add(x);
        }
        m.put("samplers", samplers);
        return m;
    }

    /** Pages per second in one direction between two snapshots, or null when unknown. */
    static Double pagingRate(HostSnapshot s, HostSnapshot previous, PagingDirection direction) {
        if (previous == null || !previous.at().isBefore(s.at())) {
            return null;
        }
        Double now = s.value(HostMetrics.PAGING_OPERATIONS, direction);
        Double before = previous.value(HostMetrics.PAGING_OPERATIONS, direction);
        if (now == null || before == null || now < before) {
            return null;
        }
        double seconds = java.time.Duration.between(previous.at(), s.at()).toNanos() / 1e9;
        return (now - before) / seconds;
    }

    private static Long asLong(Double d) {
        return d == null ? null : Math.round(d);
    }
}
