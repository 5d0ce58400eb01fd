package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import io.tailwatch.metrics.AttrValues.CpuMode;
import io.tailwatch.metrics.AttrValues.GpuMemoryState;
import io.tailwatch.metrics.AttrValues.HwType;
import io.tailwatch.metrics.AttrValues.LoadWindow;
import io.tailwatch.metrics.AttrValues.MemorySource;
import io.tailwatch.metrics.AttrValues.MemoryPageState;
import io.tailwatch.metrics.AttrValues.MemoryState;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.AttrValues.PsiKind;
import io.tailwatch.metrics.AttrValues.PsiWindow;
import io.tailwatch.metrics.AttrValues.ThrottleScope;
import java.util.List;
import java.util.Locale;

/** Host signals, the same on macOS and Linux; a signal a machine cannot read is absent. */
public final class HostMetrics {
    private HostMetrics() {
    }

    public static final MetricDef MEMORY_USAGE = MetricDef.upDownCounter("system.memory.usage", "By",
            "Physical memory by state (semconv). Linux: used (MemTotal - MemAvailable, as procps-ng 4 free), free (MemFree), cached (Cached + SReclaimable), buffers. macOS (vm_statistics64 pages x page size): used (internal - purgeable + wire + compressor_page_count, Activity Monitor's Memory Used), free (free_count, which includes speculative pages), cached (external_page_count, file-backed); the overlapping macOS page states are in tailwatch.memory.page.usage.",
            oneOf(AttrKeys.MEMORY_STATE, "Memory state", MemoryState.class));

    public static final MetricDef MEMORY_PAGE_USAGE = MetricDef.upDownCounter("tailwatch.memory.page.usage", "By",
            "macOS VM page states (host_statistics64). They overlap system.memory.usage (file-backed pages are counted in active and inactive) and are not parts that sum to the limit.",
            oneOf(AttrKeys.MEMORY_PAGE_STATE, "macOS page state", MemoryPageState.class));

    public static final MetricDef MEMORY_LIMIT = MetricDef.upDownCounter("system.memory.limit", "By",
            "Total physical memory of the host.");

    public static final MetricDef MEMORY_AVAILABLE = MetricDef.upDownCounter("tailwatch.memory.available", "By",
            "Memory that can be given to new work without swapping, on every OS (Linux MemAvailable, also exported as system.memory.linux.available; macOS (free_count - speculative_count) + external_page_count + purgeable_count pages of vm_statistics64, sets that do not overlap: speculative pages are counted once, as file-backed). The rules and the KV-cache headroom read this one.");

    public static final MetricDef LINUX_MEMORY_AVAILABLE = MetricDef.upDownCounter("system.memory.linux.available", "By",
            "Linux only (semconv): MemAvailable from /proc/meminfo, the same value as tailwatch.memory.available.");

    public static final MetricDef MEMORY_FREE_RATIO = MetricDef.gauge("tailwatch.memory.free.ratio", "1",
            "macOS kern.memorystatus_level / 100: the kernel's share of memory that is neither wired nor compressed (app memory included), what memory_pressure prints as \"System-wide memory free percentage\". Not free memory: for memory that can be given to new work read tailwatch.memory.available.");

    public static final MetricDef PAGING_USAGE = MetricDef.upDownCounter("system.paging.usage", "By",
            "Swap space used and free.",
            oneOf(AttrKeys.PAGING_STATE, "Swap state", PagingState.class));

    public static final MetricDef PAGING_OPERATIONS = MetricDef.counter("system.paging.operations", "{operation}",
            "Pages swapped in from and out to swap since boot (Linux /proc/vmstat pswpin/pswpout; macOS vm_statistics64 swapins/swapouts, which count pages of hw.pagesize, 16 KiB on Apple silicon). A rising count is paging in progress; swap used alone can be stale.",
            oneOf(AttrKeys.PAGING_DIRECTION, "Paging direction", PagingDirection.class));

    public static final MetricDef PRESSURE_LEVEL = MetricDef.gauge("tailwatch.memory.pressure.level", "{level}",
            "Memory pressure: 0 normal, 1 warning, 2 critical (macOS kernel level; Linux derived from PSI, see docs/metrics.md).");

    public static final MetricDef PRESSURE_STALL = MetricDef.gauge("tailwatch.memory.pressure.stall", "1",
            "Linux PSI memory stall ratio (share of wall time tasks were stalled on memory).",
            oneOf(AttrKeys.PSI_KIND, "some: at least one task stalled; full: all non-idle tasks stalled", PsiKind.class),
            oneOf(AttrKeys.PSI_WINDOW, "Averaging window", PsiWindow.class));

    public static final MetricDef THERMAL_LEVEL = MetricDef.gauge("tailwatch.thermal.pressure.level", "{level}",
            "macOS thermal pressure: 0 nominal, 1 moderate, 2 heavy, 3 trapping, 4 sleeping.");

    static final AttributeDef HW_ID = free(AttrKeys.HW_ID, "Component identifier, unique within the host");
    static final AttributeDef HW_NAME = free(AttrKeys.HW_NAME, "Rail or sensor name as the OS reports it");

    public static final MetricDef THERMAL_TEMPERATURE = MetricDef.gauge("hw.temperature", "Cel",
            "Temperature of each readable sensor (Linux thermal zones: hw.id is the zone, hw.name its type; macOS SMC keys of the CPU and GPU dies, Tp*, Te*, Ts*, Tg* on Apple silicon, TC*, TG* on Intel Macs: hw.id is smc_ and the key, hw.name cpu or gpu and the key; and the chip-independent CPU die aggregates TCMb, hw.name cpu average, and TCMz, hw.name cpu maximum). A per-sensor reading below 15 Cel (the fixed values a power-gated cluster reports) or above 150 Cel is left out; a Linux zone outside (0, 150] Cel is left out.",
            HW_ID, typeAttr(HwType.TEMPERATURE), HW_NAME);

    public static final MetricDef CPU_SPEED_LIMIT = MetricDef.gauge("tailwatch.cpu.speed.limit", "1",
            "CPU speed limit: the highest speed the CPU is allowed, as a ratio of full speed (macOS CPU_Speed_Limit on Intel Macs; Linux the lowest over CPUs of cpufreq scaling_max_freq / cpuinfo_max_freq). An idle CPU running slowly is not limited. Not hw.cpu.speed.limit, which is a frequency in Hz.");

    public static final MetricDef CPU_FREQUENCY = MetricDef.gauge("tailwatch.cpu.frequency", "Hz",
            "Current CPU frequency averaged over CPUs (Linux cpufreq scaling_cur_freq); low on an idle host, so not a limit.");

    public static final MetricDef CPU_THROTTLE_EVENTS = MetricDef.counter("tailwatch.cpu.throttle.events", "{event}",
            "Thermal throttle events since boot (Linux x86 thermal_throttle counters: core summed over CPUs, package once per package).",
            oneOf(AttrKeys.THROTTLE_SCOPE, "Throttle counter scope", ThrottleScope.class));

    /** hw.type values (semconv enum) a power rail maps to. */
    static final HwType[] HW_TYPES = {HwType.CPU, HwType.GPU, HwType.MEMORY, HwType.ENCLOSURE};

    /** hw.type, limited to {@code types}. */
    private static AttributeDef typeAttr(HwType... types) {
        return oneOf(AttrKeys.HW_TYPE, "Component type (semconv)", types);
    }

    /** hw.limit_type of a limit metric. */
    private static final AttributeDef LIMIT_TYPE = oneOf(AttrKeys.HW_LIMIT_TYPE, "Which limit (semconv)", AttrValues.LimitType.class);

    /** Where an Apple silicon rail's figure comes from (absent on Linux RAPL rails). */
    static final AttributeDef RAIL_SOURCE = new AttributeDef(AttrKeys.RAIL_SOURCE,
            "Apple silicon: the counters of the figure: energy_model (IOReport Energy Model) or clpc (AppleCLPC accumulators, where the Energy Model rail is frozen)",
            List.of(AttrValues.RailSource.values()), true);
    /** Whether an Apple silicon rail's figure is the rail's own or a split of a larger total. */
    static final AttributeDef EXACTNESS = new AttributeDef(AttrKeys.POWER_EXACTNESS,
            "Apple silicon: exact (the rail's own counter) or estimated (the driver's split of a cluster total: CLPC on chips other than M5 Pro/Max)",
            List.of(AttrValues.PowerExactness.values()), true);

    public static final MetricDef POWER = MetricDef.gauge("hw.power", "W",
            "Average power by rail. hw.name is the rail (cpu, gpu, ane, dram, gpu_sram, dcs on Apple silicon; package, core, uncore, dram, psys from Linux RAPL); hw.type is its semconv class (DRAM is memory; the Neural Engine counts as cpu; psys as enclosure). Rails overlap on Linux (package includes core and uncore): sum by hw.name, not by hw.type. On Apple silicon tailwatch.power.rail.source says which counters the figure comes from (energy_model, or clpc where macOS froze the Energy Model rail: cpu, dram, ane on macOS 27) and tailwatch.power.exactness whether it is exact or estimated. A rail whose counter is published in batches (cpu, dram, dcs; about every 2 s on M5 Max and M1 Ultra) is rated over its publication interval, the seconds since its previous batch, and keeps that rate until the next batch; a rail with neither source is absent.",
            HW_ID, typeAttr(HW_TYPES), HW_NAME, RAIL_SOURCE, EXACTNESS);

    public static final MetricDef ENERGY = MetricDef.counter("hw.energy", "J",
            "Energy consumed since the agent started, by rail (attributes as hw.power).",
            HW_ID, typeAttr(HW_TYPES), HW_NAME, RAIL_SOURCE, EXACTNESS);

    public static final MetricDef ANE_RESIDENCY = MetricDef.gauge("tailwatch.ane.residency", "1",
            "macOS: the Neural Engine's busy share over the last sample interval, its active residency over active plus inactive from IOReport's ANE residency counters. Absent where the Mac has no such counters (then the ANE's activity is unknown, not 0), on the first sample and on Linux.",
            HW_ID, typeAttr(HwType.CPU));

    public static final MetricDef PROCESS_GPU_MEMORY = MetricDef.upDownCounter("tailwatch.process.gpu.memory.usage", "By",
            "macOS: graphics (IOAccelerator) memory of an engine's processes, summed over its process tree (Ollama's runners included): the graphics ledgers of TASK_VM_INFO revision 3 (ledger_tag_graphics_footprint, what Activity Monitor shows as GPU memory), the part of the footprint Metal holds. GpuMemoryLimitNear compares the engines' sum with hw.gpu.memory.limit. Absent when no process of the engine could be read (macOS allows task_for_pid only for the agent's own user's processes, or as root) and on Linux.",
            free(AttrKeys.ENGINE, "Configured engine name"));

    public static final MetricDef POWER_RAIL_STATE = MetricDef.gauge("tailwatch.power.rail.state", "{bool}",
            "Always 1, one series per power rail the host reports: measured while its energy counter moves, frozen when macOS stopped it (no energy over at least 40 ms on a rail that cannot be idle: cpu, dram, dcs; seen on macOS 26 and 27). A frozen rail has no hw.power or hw.energy series until its counter moves again: unavailable, never 0 W.",
            HW_ID, typeAttr(HW_TYPES), HW_NAME,
            oneOf(AttrKeys.RAIL_STATUS, "Whether the counter moves", AttrValues.RailStatus.class));

    public static final MetricDef HOST_POWER = MetricDef.gauge("hw.host.power", "W",
            "macOS: power drawn by the whole machine, the SMC's PSTR key (system total, read through the AppleSMC user client without sudo). It does not depend on the IOReport rails, so it stays when macOS freezes them. Absent where the SMC has no PSTR key (older Intel Macs) and on Linux.",
            HW_ID, HW_NAME);

    public static final MetricDef HOST_ENERGY = MetricDef.counter("hw.host.energy", "J",
            "macOS: energy drawn by the whole machine since the agent started, hw.host.power integrated over time (the trapezoid between consecutive readings; an interval with a failed reading adds nothing).",
            HW_ID, HW_NAME);

    public static final MetricDef FAN_SPEED = MetricDef.gauge("hw.fan.speed", "rpm",
            "macOS: speed of each fan, SMC F<n>Ac (n below FNum). Absent on a Mac without fans (FNum 0 or missing) and on Linux.",
            HW_ID, typeAttr(HwType.FAN), HW_NAME);

    public static final MetricDef FAN_SPEED_LIMIT = MetricDef.gauge("hw.fan.speed.limit", "rpm",
            "macOS: the highest speed of each fan, SMC F<n>Mx (hw.limit_type max).",
            HW_ID, typeAttr(HwType.FAN), HW_NAME,
            LIMIT_TYPE);

    public static final MetricDef BATTERY_CHARGE = MetricDef.gauge("hw.battery.charge", "1",
            "macOS laptops: remaining charge, CurrentCapacity / MaxCapacity of the AppleSmartBattery IORegistry entry. Absent on a Mac without a battery and on Linux.",
            HW_ID, typeAttr(HwType.BATTERY), HW_NAME);

    public static final MetricDef BATTERY_POWER = MetricDef.gauge("tailwatch.battery.power", "W",
            "macOS laptops: power into the battery, Voltage x Amperage of the AppleSmartBattery entry: positive while charging, negative while the battery feeds the machine (then minus this is what the machine draws). semconv has no battery power metric. Absent without a battery.",
            HW_ID, typeAttr(HwType.BATTERY), HW_NAME);

    public static final MetricDef POWER_SUPPLY_LIMIT = MetricDef.gauge("hw.power_supply.limit", "W",
            "macOS laptops: the rated power of the connected power adapter (AppleSmartBattery AdapterDetails Watts, hw.limit_type max). Absent while no adapter is connected.",
            HW_ID, typeAttr(HwType.POWER_SUPPLY), HW_NAME,
            LIMIT_TYPE);

    public static final MetricDef GPU_UTILIZATION = MetricDef.gauge("hw.gpu.utilization", "1",
            "GPU active residency over the last sample interval.",
            HW_ID, typeAttr(HwType.GPU));

    public static final MetricDef GPU_FREQUENCY = MetricDef.gauge("tailwatch.gpu.frequency", "Hz",
            "Residency-weighted average GPU frequency over the last sample interval (semconv has no GPU frequency metric).");

    public static final MetricDef GPU_MEMORY_LIMIT = MetricDef.upDownCounter("hw.gpu.memory.limit", "By",
            "macOS: the GPU working-set limit, Metal's MTLDevice.recommendedMaxWorkingSetSize (semconv hw.gpu.memory.limit). On unified memory a model meets this before total memory: about 3/4 of it on the larger Macs (107.52 GiB of 128 GiB), and it follows the iogpu.wired_limit_mb sysctl. Absent on Linux.",
            HW_ID, typeAttr(HwType.GPU));

    public static final MetricDef GPU_MEMORY_USAGE = MetricDef.upDownCounter("hw.gpu.memory.usage", "By",
            "macOS: GPU memory system-wide from the IOAccelerator's PerformanceStatistics in the IORegistry: in_use (\"In use system memory\") and allocated (\"Alloc system memory\"). Absent on Linux.",
            HW_ID, typeAttr(HwType.GPU),
            oneOf(AttrKeys.GPU_MEMORY_STATE, "in_use: held by GPU work now; allocated: allocated by the GPU driver", GpuMemoryState.class));

    public static final MetricDef GPU_WIRED_LIMIT = MetricDef.upDownCounter("tailwatch.gpu.wired_limit", "By",
            "macOS: the iogpu.wired_limit_mb sysctl in bytes, the operator's override of how much memory the GPU may wire. Absent while it is 0 (the default, when Metal picks the limit itself) and on Linux.");

    public static final MetricDef PROCESS_FOOTPRINT = MetricDef.upDownCounter("tailwatch.process.memory.footprint", "By",
            "Physical footprint of an engine's processes (macOS ri_phys_footprint, what Activity Monitor shows; semconv has no footprint metric).",
            free(AttrKeys.ENGINE, "Configured engine name"));

    public static final MetricDef PROCESS_RSS = MetricDef.upDownCounter("process.memory.usage", "By",
            "Resident set size (semconv process.memory.usage), summed over an engine's processes.",
            free(AttrKeys.ENGINE, "Configured engine name"));

    /**
     * semconv {@code system.cpu.utilization} (opt-in there; {@code system.cpu.time} is the recommended
     * counter). The utilization is exported because it is a ratio of tick deltas, exact without the
     * tick rate: macOS counts PROCESSOR_CPU_LOAD_INFO in scheduler ticks whose rate is no part of the
     * API, so seconds would rest on an assumed rate; and it is what a rule reads to see an engine is
     * CPU-bound, without a rate() over a counter.
     */
    public static final MetricDef CPU_UTILIZATION = MetricDef.gauge("system.cpu.utilization", "1",
            "Share of CPU time in each mode over the last sample interval, over all logical CPUs (the modes add up to 1). Linux /proc/stat (interrupt = irq + softirq; guest time is inside user and nice); macOS host_processor_info(PROCESSOR_CPU_LOAD_INFO): user, system, idle (xnu reports no nice time).",
            oneOf(AttrKeys.CPU_MODE, "CPU mode (semconv)", CpuMode.class));

    public static final MetricDef CPU_CLUSTER_UTILIZATION = MetricDef.gauge("tailwatch.cpu.cluster.utilization", "1",
            "Apple silicon: system.cpu.utilization of each core cluster, so a busy cluster shows even when the machine-wide figure is low. Names and sizes from hw.perflevelN, membership from the device tree (IODeviceTree:/cpus, each CPU's logical-cpu-id and cluster-type E, M or P): a two-die Ultra's efficiency cores are on both dies; on M5 Pro/Max \"performance\" (type M) is the slower tier and \"super\" (type P) the faster, the last six CPUs on an M5 Max. Absent when the two do not agree, and when the self-check rejected the device tree's layout (sampler cpu_cluster).",
            free(AttrKeys.CPU_CLUSTER, "The cluster's hw.perflevelN.name, lower case (performance, efficiency; super, performance on M5 Pro/Max)"),
            oneOf(AttrKeys.CPU_MODE, "CPU mode (semconv)", CpuMode.class));

    public static final MetricDef PROCESS_PSS = MetricDef.upDownCounter("tailwatch.process.memory.pss", "By",
            "Linux: proportional set size summed over an engine's processes (/proc/PID/smaps_rollup Pss: a page shared by n processes counts 1/n in each, so a forked parent and child are not counted twice as their RSS sum is). Where any of the engine's smaps_rollup files cannot be read (another user's process, a kernel before 4.14) the figure is the RSS sum and tailwatch.memory.source says rss. What capacity reports use as the engine's memory on Linux.",
            free(AttrKeys.ENGINE, "Configured engine name"),
            oneOf(AttrKeys.MEMORY_SOURCE, "pss: every process's smaps_rollup was read; rss: the RSS sum stands in", MemorySource.class));

    public static final MetricDef CPU_TIME = MetricDef.counter("system.cpu.time", "s",
            "Linux, opt-in (host.per_cpu): seconds each logical CPU spent in each mode since boot (semconv system.cpu.time; node_exporter's node_cpu_seconds_total), from the cpuN lines of /proc/stat in USER_HZ ticks (100 per second, the kernel's fixed ABI; interrupt = irq + softirq; guest time is inside user and nice). 7 series per logical CPU, at most 64 CPUs.",
            oneOf(AttrKeys.CPU_MODE, "CPU mode (semconv)", CpuMode.class),
            free(AttrKeys.CPU_LOGICAL_NUMBER, "Logical CPU number [0..n-1] (semconv cpu.logical_number)"));

    public static final MetricDef LOAD_AVERAGE = MetricDef.gauge("tailwatch.cpu.load_average", "{thread}",
            "Linux load average over 1, 5 and 15 minutes (/proc/loadavg: runnable plus uninterruptible tasks, node_exporter's node_load1/5/15; semconv has no load metric).",
            oneOf(AttrKeys.LOAD_WINDOW, "Averaging window", LoadWindow.class));

    public static final MetricDef CPU_PRESSURE_STALL = MetricDef.gauge("tailwatch.cpu.pressure.stall", "1",
            "Linux PSI CPU stall ratio (/proc/pressure/cpu: share of wall time runnable tasks waited for a CPU). Only \"some\": the kernel reports \"full\" as 0 at the system level, where it is undefined.",
            oneOf(AttrKeys.PSI_KIND, "some: at least one task stalled", PsiKind.SOME),
            oneOf(AttrKeys.PSI_WINDOW, "Averaging window", PsiWindow.class));

    public static final MetricDef IO_PRESSURE_STALL = MetricDef.gauge("tailwatch.io.pressure.stall", "1",
            "Linux PSI I/O stall ratio (/proc/pressure/io: share of wall time tasks were stalled on I/O).",
            oneOf(AttrKeys.PSI_KIND, "some: at least one task stalled; full: all non-idle tasks stalled", PsiKind.class),
            oneOf(AttrKeys.PSI_WINDOW, "Averaging window", PsiWindow.class));

    public static final MetricDef CPU_PRESSURE_STALL_TIME = MetricDef.counter("tailwatch.cpu.pressure.stall.time", "s",
            "Linux PSI total CPU stall time since boot (/proc/pressure/cpu some total=, microseconds; node_exporter's node_pressure_cpu_waiting_seconds_total).",
            oneOf(AttrKeys.PSI_KIND, "some: at least one task stalled", PsiKind.SOME));

    public static final MetricDef IO_PRESSURE_STALL_TIME = MetricDef.counter("tailwatch.io.pressure.stall.time", "s",
            "Linux PSI total I/O stall time since boot (/proc/pressure/io total=; node_exporter's node_pressure_io_waiting/stalled_seconds_total).",
            oneOf(AttrKeys.PSI_KIND, "some: at least one task stalled; full: all non-idle tasks stalled", PsiKind.class));

    public static final MetricDef MEMORY_PRESSURE_STALL_TIME = MetricDef.counter("tailwatch.memory.pressure.stall.time", "s",
            "Linux PSI total memory stall time since boot (/proc/pressure/memory total=; node_exporter's node_pressure_memory_waiting/stalled_seconds_total).",
            oneOf(AttrKeys.PSI_KIND, "some: at least one task stalled; full: all non-idle tasks stalled", PsiKind.class));

    public static final MetricDef PROCESS_GPU_UTILIZATION = MetricDef.gauge("tailwatch.process.gpu.utilization", "1",
            "macOS: an engine's share of a GPU over the last sample interval: the GPU time its processes' Metal clients accumulated (the accelerator's user clients in the IORegistry, IOUserClientCreator and AppUsage accumulatedGPUTime), in nanoseconds over the wall-clock nanoseconds, at most 1 per GPU. 0 for a running engine with no GPU work; absent on the first sample, for an engine that is not running, when the clients cannot be read, and on Linux (semconv has no per-process GPU metric).",
            free(AttrKeys.ENGINE, "Configured engine name"), HW_ID, typeAttr(HwType.GPU));

    public static final List<MetricDef> ALL = List.of(MEMORY_USAGE, MEMORY_PAGE_USAGE, MEMORY_LIMIT, MEMORY_AVAILABLE,
            LINUX_MEMORY_AVAILABLE, MEMORY_FREE_RATIO, PAGING_USAGE, PAGING_OPERATIONS, PRESSURE_LEVEL, PRESSURE_STALL,
            THERMAL_LEVEL, THERMAL_TEMPERATURE, CPU_SPEED_LIMIT, CPU_FREQUENCY, CPU_THROTTLE_EVENTS, POWER, ENERGY, POWER_RAIL_STATE,
            GPU_UTILIZATION, GPU_FREQUENCY, GPU_MEMORY_LIMIT, GPU_MEMORY_USAGE, GPU_WIRED_LIMIT, PROCESS_FOOTPRINT, PROCESS_RSS, CPU_UTILIZATION, CPU_CLUSTER_UTILIZATION,
            HOST_POWER, HOST_ENERGY, FAN_SPEED, FAN_SPEED_LIMIT, BATTERY_CHARGE, BATTERY_POWER, POWER_SUPPLY_LIMIT,
            PROCESS_PSS, CPU_TIME, LOAD_AVERAGE, CPU_PRESSURE_STALL, IO_PRESSURE_STALL,
            CPU_PRESSURE_STALL_TIME, IO_PRESSURE_STALL_TIME, MEMORY_PRESSURE_STALL_TIME,
            PROCESS_GPU_UTILIZATION, ANE_RESIDENCY, PROCESS_GPU_MEMORY);

    /** The semconv hw.type of a power rail. */
    public static HwType hwType(String rail) {
        return switch (rail.toLowerCase(Locale.ROOT)) {
            case "gpu", "gpu_sram", "uncore" -> HwType.GPU;
            case "dram", "dcs" -> HwType.MEMORY;
            case "psys" -> HwType.ENCLOSURE;
            default -> HwType.CPU;
        };
    }

    /** One hw.power point for a rail. */
    public static Point power(String rail, double watts) {
        return Point.of(POWER, watts, hwType(rail), AttrKeys.HW_ID, rail, AttrKeys.HW_NAME, rail);
    }

    /** One hw.power point for an Apple silicon rail with its source and exactness. */
    public static Point power(String rail, double watts, AttrValues.RailSource source, AttrValues.PowerExactness exactness) {
        return sourced(POWER, rail, watts, source, exactness);
    }

    /** One hw.energy point for an Apple silicon rail with its source and exactness. */
    public static Point energy(String rail, double joules, AttrValues.RailSource source, AttrValues.PowerExactness exactness) {
        return sourced(ENERGY, rail, joules, source, exactness);
    }

    private static Point sourced(MetricDef metric, String rail, double value, AttrValues.RailSource source,
                                 AttrValues.PowerExactness exactness) {
        java.util.Map<String, String> m = Attrs.of(hwType(rail), AttrKeys.HW_ID, rail, AttrKeys.HW_NAME, rail);
        Attrs.put(m, source);
        Attrs.put(m, exactness);
        return new Point(metric, m, value);
    }

    /** The tailwatch.ane.residency point of the (single) Neural Engine. */
    public static Point aneResidency(double ratio) {
        return Point.of(ANE_RESIDENCY, ratio, HwType.CPU, AttrKeys.HW_ID, "ane0");
    }

    /** One engine's tailwatch.process.gpu.memory.usage point. */
    public static Point processGpuMemory(String engine, double bytes) {
        return Point.of(PROCESS_GPU_MEMORY, bytes, AttrKeys.ENGINE, engine);
    }

    /** One hw.energy point for a rail. */
    public static Point energy(String rail, double joules) {
        return Point.of(ENERGY, joules, hwType(rail), AttrKeys.HW_ID, rail, AttrKeys.HW_NAME, rail);
    }

    /** The state point of a power rail. */
    public static Point railState(String rail, AttrValues.RailStatus status) {
        return Point.of(POWER_RAIL_STATE, 1, hwType(rail), status, AttrKeys.HW_ID, rail, AttrKeys.HW_NAME, rail);
    }

    /** One hw.temperature point for a sensor. */
    public static Point temperature(String id, String name, double celsius) {
        return Point.of(THERMAL_TEMPERATURE, celsius, HwType.TEMPERATURE, AttrKeys.HW_ID, id, AttrKeys.HW_NAME, name);
    }

    /** The hw.gpu.memory.limit point of the (single, integrated) GPU. */
    public static Point gpuMemoryLimit(double bytes) {
        return Point.of(GPU_MEMORY_LIMIT, bytes, HwType.GPU, AttrKeys.HW_ID, "gpu0");
    }

    /** One hw.gpu.memory.usage point of the (single, integrated) GPU. */
    public static Point gpuMemoryUsage(double bytes, GpuMemoryState state) {
        return Point.of(GPU_MEMORY_USAGE, bytes, state, HwType.GPU, AttrKeys.HW_ID, "gpu0");
    }

    /** The hw.gpu.utilization point of the (single, integrated) GPU. */
    public static Point gpuUtilization(double ratio) {
        return Point.of(GPU_UTILIZATION, ratio, HwType.GPU, AttrKeys.HW_ID, "gpu0");
    }

    /** One engine's tailwatch.process.gpu.utilization point on one GPU (hw.id gpu0 on Apple silicon). */
    public static Point processGpuUtilization(String engine, String gpu, double ratio) {
        return Point.of(PROCESS_GPU_UTILIZATION, ratio, HwType.GPU, AttrKeys.ENGINE, engine, AttrKeys.HW_ID, gpu);
    }

    /** The hw.id and hw.name of the whole machine in hw.host.power and hw.host.energy. */
    public static final String HOST_ID = "host";

    /** The hw.host.power point of the whole machine. */
    public static Point hostPower(double watts) {
        return Point.of(HOST_POWER, watts, AttrKeys.HW_ID, HOST_ID, AttrKeys.HW_NAME, "system");
    }

    /** The hw.host.energy point of the whole machine. */
    public static Point hostEnergy(double joules) {
        return Point.of(HOST_ENERGY, joules, AttrKeys.HW_ID, HOST_ID, AttrKeys.HW_NAME, "system");
    }

    /** The hw.fan.speed point of fan {@code n}. */
    public static Point fanSpeed(int n, double rpm) {
        return Point.of(FAN_SPEED, rpm, HwType.FAN, AttrKeys.HW_ID, "fan" + n, AttrKeys.HW_NAME, "fan " + n);
    }

    /** The hw.fan.speed.limit (max) point of fan {@code n}. */
    public static Point fanSpeedLimit(int n, double rpm) {
        return Point.of(FAN_SPEED_LIMIT, rpm, HwType.FAN, AttrValues.LimitType.MAX, AttrKeys.HW_ID, "fan" + n,
                AttrKeys.HW_NAME, "fan " + n);
    }

    /** A battery point (hw.battery.charge or tailwatch.battery.power) of the internal battery. */
    public static Point battery(MetricDef metric, double value) {
        return Point.of(metric, value, HwType.BATTERY, AttrKeys.HW_ID, "battery0", AttrKeys.HW_NAME, "battery");
    }

    /** The hw.power_supply.limit (max) point of the connected adapter. */
    public static Point adapterLimit(double watts) {
        return Point.of(POWER_SUPPLY_LIMIT, watts, HwType.POWER_SUPPLY, AttrValues.LimitType.MAX, AttrKeys.HW_ID, "adapter0",
                AttrKeys.HW_NAME, "power adapter");
    }
}
