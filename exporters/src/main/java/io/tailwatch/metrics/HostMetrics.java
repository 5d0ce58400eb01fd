package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import java.util.List;

/** Host signals, the same on macOS and Linux; a signal a machine cannot read is absent. */
public final class HostMetrics {
    private HostMetrics() {
    }

    public static final MetricDef MEMORY_USAGE = MetricDef.gauge("system.memory.usage", "By",
            "Physical memory in use by state. Linux: used (MemTotal - MemAvailable, as procps-ng 4 free), free, cached (Cached + SReclaimable), buffers. macOS: used (app memory internal - purgeable, + wired + compressor-occupied pages), free (free_count, speculative included), active, inactive, wired, compressed, cached (file-backed external_page_count, also counted in active/inactive).",
            oneOf("system.memory.state", "Memory state",
                    "used", "free", "cached", "buffers", "active", "inactive", "wired", "compressed"));

    public static final MetricDef MEMORY_LIMIT = MetricDef.gauge("system.memory.limit", "By",
            "Total physical memory of the host.");

    public static final MetricDef MEMORY_AVAILABLE = MetricDef.gauge("tailwatch.memory.available", "By",
            "Memory that can be given to new work without swapping. Linux: MemAvailable. macOS: (free_count - speculative_count) + external_page_count + purgeable_count pages of vm_statistics64, sets that do not overlap (speculative pages are counted once, as file-backed).");

    public static final MetricDef MEMORY_FREE_RATIO = MetricDef.gauge("tailwatch.memory.free.ratio", "1",
            "System-wide free memory as a ratio (macOS kern.memorystatus_level / 100).");

    public static final MetricDef PAGING_USAGE = MetricDef.gauge("system.paging.usage", "By",
            "Swap space used and free.",
            oneOf("system.paging.state", "Swap state", "used", "free"));

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
            "CPU speed limit as a ratio of full speed (macOS CPU_Speed_Limit on Intel Macs; Linux cpufreq cur/max averaged over CPUs).");

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

    /**
     * semconv {@code system.cpu.utilization} (opt-in there; {@code system.cpu.time} is the recommended
     * counter). The utilization is exported because it is a ratio of tick deltas, exact without the
     * tick rate: macOS counts PROCESSOR_CPU_LOAD_INFO in scheduler ticks whose rate is no part of the
     * API, so seconds would rest on an assumed rate; and it is what a rule reads to see an engine is
     * CPU-bound, without a rate() over a counter.
     */
    public static final MetricDef CPU_UTILIZATION = MetricDef.gauge("system.cpu.utilization", "1",
            "Share of CPU time in each mode over the last sample interval, over all logical CPUs (the modes add up to 1). Linux /proc/stat (interrupt = irq + softirq; guest time is inside user and nice); macOS host_processor_info(PROCESSOR_CPU_LOAD_INFO): user, system, idle (xnu reports no nice time).",
            oneOf("cpu.mode", "CPU mode (semconv)", "user", "system", "nice", "idle", "iowait", "interrupt", "steal"));

    public static final MetricDef CPU_CLUSTER_UTILIZATION = MetricDef.gauge("tailwatch.cpu.cluster.utilization", "1",
            "Apple silicon: system.cpu.utilization of each core cluster (hw.perflevelN: performance, efficiency), so a busy cluster shows even when the machine-wide figure is low.",
            free("tailwatch.cpu.cluster", "The cluster's hw.perflevelN.name, lower case (performance, efficiency)"),
            oneOf("cpu.mode", "CPU mode (semconv)", "user", "system", "nice", "idle", "iowait", "interrupt", "steal"));

    public static final List<MetricDef> ALL = List.of(MEMORY_USAGE, MEMORY_LIMIT, MEMORY_AVAILABLE, MEMORY_FREE_RATIO,
            PAGING_USAGE, PRESSURE_LEVEL, PRESSURE_STALL, THERMAL_LEVEL, THERMAL_TEMPERATURE, CPU_SPEED_LIMIT,
            POWER, ENERGY, GPU_UTILIZATION, GPU_FREQUENCY, PROCESS_FOOTPRINT, PROCESS_RSS, CPU_UTILIZATION,
            CPU_CLUSTER_UTILIZATION);
}
