package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import java.util.List;

/** Host signals, the same on macOS and Linux; a signal a machine cannot read is absent. */
public final class HostMetrics {
    private HostMetrics() {
    }

    public static final MetricDef MEMORY_USAGE = MetricDef.gauge("system.memory.usage", "By",
            "Physical memory in use by state. Linux: used, free, cached, buffers. macOS: used (app + wired + compressed), free, active, inactive, wired, compressed, cached (file-backed, also counted in active/inactive).",
            oneOf("system.memory.state", "Memory state",
                    "used", "free", "cached", "buffers", "active", "inactive", "wired", "compressed"));

    public static final MetricDef MEMORY_LIMIT = MetricDef.gauge("system.memory.limit", "By",
            "Total physical memory of the host.");

    public static final MetricDef MEMORY_AVAILABLE = MetricDef.gauge("tailwatch.memory.available", "By",
            "Memory that can be given to new work without swapping (Linux MemAvailable; macOS free + file-backed + purgeable pages).");

    public static final MetricDef MEMORY_FREE_RATIO = MetricDef.gauge("tailwatch.memory.free.ratio", "1",
            "System-wide free memory as a ratio (macOS kern.memorystatus_level / 100).");

    public static final MetricDef PAGING_USAGE = MetricDef.gauge("system.paging.usage", "By",
            "Swap space used and free.",
            oneOf("system.paging.state", "Swap state", "used", "free"));

    public static final MetricDef PAGING_OPERATIONS = MetricDef.counter("system.paging.operations", "{operation}",
            "Pages swapped in from and out to swap since boot (Linux /proc/vmstat pswpin/pswpout; macOS vm_statistics64 swapins/swapouts, which count compressor segments). A rising count is paging in progress; swap used alone can be stale.",
            oneOf("system.paging.direction", "Paging direction", "in", "out"));

    public static final MetricDef PRESSURE_LEVEL = MetricDef.gauge("tailwatch.memory.pressure.level", "{level}",
            "Memory pressure: 0 normal, 1 warning, 2 critical (macOS kernel level; Linux derived from PSI, see docs/metrics.md).");

    public static final MetricDef PRESSURE_STALL = MetricDef.gauge("tailwatch.memory.pressure.stall", "1",
            "Linux PSI memory stall ratio (share of wall time tasks were stalled on memory).",
            oneOf("psi.kind", "some: at least one task stalled; full: all non-idle tasks stalled", "some", "full"),
            oneOf("psi.window", "Averaging window", "avg10", "avg60", "avg300"));

    public static final MetricDef THERMAL_LEVEL = MetricDef.gauge("tailwatch.thermal.pressure.level", "{level}",
            "macOS thermal pressure: 0 nominal, 1 moderate, 2 heavy, 3 trapping, 4 sleeping.");

    public static final MetricDef THERMAL_TEMPERATURE = MetricDef.gauge("tailwatch.thermal.temperature", "Cel",
            "Temperature of the hottest thermal zone.");

    public static final MetricDef CPU_SPEED_LIMIT = MetricDef.gauge("tailwatch.cpu.speed.limit", "1",
            "CPU speed limit: the highest speed the CPU is allowed, as a ratio of full speed (macOS CPU_Speed_Limit on Intel Macs; Linux the lowest over CPUs of cpufreq scaling_max_freq / cpuinfo_max_freq). An idle CPU running slowly is not limited.");

    public static final MetricDef CPU_FREQUENCY = MetricDef.gauge("tailwatch.cpu.frequency", "Hz",
            "Current CPU frequency averaged over CPUs (Linux cpufreq scaling_cur_freq); low on an idle host, so not a limit.");

    public static final MetricDef CPU_THROTTLE_EVENTS = MetricDef.counter("tailwatch.cpu.throttle.events", "{event}",
            "Thermal throttle events since boot (Linux x86 thermal_throttle counters: core summed over CPUs, package once per package).",
            oneOf("tailwatch.cpu.throttle.scope", "Throttle counter scope", "core", "package"));

    public static final MetricDef POWER = MetricDef.gauge("hw.power", "W",
            "Average power over the last sample interval, by rail.",
            oneOf("hw.type", "Power rail", "cpu", "gpu", "ane", "dram", "gpu_sram", "dcs", "package", "core", "uncore", "psys"));

    public static final MetricDef ENERGY = MetricDef.counter("hw.energy", "J",
            "Energy consumed since the agent started, by rail.",
            oneOf("hw.type", "Power rail", "cpu", "gpu", "ane", "dram", "gpu_sram", "dcs", "package", "core", "uncore", "psys"));

    public static final MetricDef GPU_UTILIZATION = MetricDef.gauge("tailwatch.gpu.utilization", "1",
            "GPU active residency over the last sample interval.");

    public static final MetricDef GPU_FREQUENCY = MetricDef.gauge("tailwatch.gpu.frequency", "Hz",
            "Residency-weighted average GPU frequency over the last sample interval.");

    public static final MetricDef PROCESS_FOOTPRINT = MetricDef.gauge("tailwatch.process.memory.footprint", "By",
            "Physical footprint of an engine's processes (macOS ri_phys_footprint, what Activity Monitor shows).",
            free("engine", "Configured engine name"));

    public static final MetricDef PROCESS_RSS = MetricDef.gauge("tailwatch.process.memory.rss", "By",
            "Resident set size of an engine's processes.",
            free("engine", "Configured engine name"));

    public static final List<MetricDef> ALL = List.of(MEMORY_USAGE, MEMORY_LIMIT, MEMORY_AVAILABLE, MEMORY_FREE_RATIO,
            PAGING_USAGE, PAGING_OPERATIONS, PRESSURE_LEVEL, PRESSURE_STALL, THERMAL_LEVEL, THERMAL_TEMPERATURE,
            CPU_SPEED_LIMIT, CPU_FREQUENCY, CPU_THROTTLE_EVENTS,
            POWER, ENERGY, GPU_UTILIZATION, GPU_FREQUENCY, PROCESS_FOOTPRINT, PROCESS_RSS);
}
