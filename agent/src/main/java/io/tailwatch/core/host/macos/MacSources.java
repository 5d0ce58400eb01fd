package io.tailwatch.core.host.macos;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.ProcessTable;
import io.tailwatch.core.host.Sampler;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The macOS samplers. Nothing native is loaded here: each sampler opens its library on its first
 * run through a {@link Lazy}, so a missing library (IOReport on an older macOS, IOKit power status
 * on a Mac that has none) fails that sampler alone.
 */
public final class MacSources {
    /** Engine processes are looked up again every this many samples (and whenever one has gone). */
    static final int REDISCOVER_EVERY = 12;

    private MacSources() {
    }

    public static List<Sampler> samplers(Config config) {
        Lazy<MacSystem> system = Lazy.of("libSystem sysctl", MacNativeSystem::open);
        Lazy<List<DeviceTreeCpus.Cpu>> deviceTree = Lazy.of("device tree " + DeviceTreeCpus.PATH,
                () -> DeviceTreeCpus.decode(MacNativeDeviceTree.cpus()));
        Lazy<ThermalPressureSource> notify = Lazy.of("notify(3) thermal pressure", MacNativeNotify::open);
        Lazy<CpuPowerStatusSource> power = Lazy.of("IOPMCopyCPUPowerStatus", MacNativePowerStatus::open);
        Lazy<IOReportSource> energy = Lazy.retrying("IOReport Energy Model",
                () -> MacNativeIOReport.open(EnergyModel.GROUP, null, n -> EnergyModel.rail(n) != null), 60);
        Lazy<IOReportSource> clpc = Lazy.retrying("IOReport CLPC Energy Counters",
                () -> MacNativeIOReport.open(ClpcEnergy.GROUP, ClpcEnergy.SUBGROUP, n -> ClpcEnergy.rail(n) != null), 60);
        RailChoice railChoice = new RailChoice();
        Lazy<IOReportSource> ane = Lazy.retrying("IOReport ANE residency",
                () -> MacNativeIOReport.open(AneResidency.GROUP, null, AneResidency::wanted), 60);
        Lazy<IOReportSource> gpu = Lazy.retrying("IOReport GPU Stats",
                () -> MacNativeIOReport.open(GpuResidency.GROUP, GpuResidency.SUBGROUP, GpuResidency.CHANNEL::equals), 60);
        Lazy<long[]> gpuTable = Lazy.of("GPU DVFS table", MacNativeGpuTable::read);
        Lazy<ProcessTable> processes = Lazy.of("libproc", MacNativeProcessTable::open);
        Lazy<MetalWorkingSet> metal = Lazy.of("Metal recommendedMaxWorkingSetSize", MacNativeMetal::open);
        Lazy<AcceleratorSource> accelerator = Lazy.of("IOAccelerator PerformanceStatistics", MacNativeAccelerator::open);
        EngineProcessSampler engineProcesses = new EngineProcessSampler(config.engines(), processes, REDISCOVER_EVERY,
                MacProbes.LIBPROC);
        // One AppleSMC connection for the three SMC samplers (they run one after another on one thread).
        Lazy<Smc> smc = Lazy.of("AppleSMC user client", () -> new Smc(MacNativeSmc.open()));
        Lazy<BatterySource> battery = Lazy.of("AppleSmartBattery", MacNativeBattery::open);
        return List.of(
                new MacMemorySampler(system),
                new MacCpuSampler(system),
                new MacCpuClusterSampler(system, deviceTree),
                new MacSwapSampler(system),
                new MacPagingSampler(system),
                new MacMemoryPressureSampler(system),
                new MacThermalPressureSampler(notify),
                new MacCpuSpeedLimitSampler(power),
                new MacPowerSampler(energy, railChoice),
                new MacClpcPowerSampler(clpc, system, railChoice),
                new MacAneSampler(ane),
                new MacGpuSampler(gpu, gpuTable),
                new MacGpuLimitSampler(metal),
                new MacGpuMemorySampler(accelerator, system),
                new MacSystemPowerSampler(smc),
                new MacFanSampler(smc),
                new MacSmcTemperatureSampler(smc),
                new MacBatterySampler(battery),
                engineProcesses,
                new MacGpuTimeSampler(accelerator, engineProcesses::pids),
                new MacEngineGpuMemorySampler(Lazy.of("libSystem task_info", MacNativeTaskVm::open), engineProcesses::pids));
    }

    /**
     * host.cpu.model (machdep.cpu.brand_string), host.model (hw.model) and os.version
     * (kern.osproductversion); any that cannot be read is left out.
     */
    public static Map<String, String> resourceAttributes() {
        return resourceAttributes(Lazy.of("libSystem sysctl", MacNativeSystem::open));
    }

    /** sysctl kern.uuid, or null when it cannot be read. */
    public static String machineId() {
        MacSystem s = Lazy.of("libSystem sysctl", MacNativeSystem::open).getOrNull();
        if (s == null) {
            return null;
        }
        try {
            String v = s.sysctlString("kern.uuid").strip();
            return v.isEmpty() ? null : v;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    static Map<String, String> resourceAttributes(Lazy<MacSystem> system) {
        Map<String, String> m = new LinkedHashMap<>();
        MacSystem s = system.getOrNull();
        if (s == null) {
            return m;
        }
        put(m, "host.cpu.model", s, "machdep.cpu.brand_string");
        put(m, "host.model", s, "hw.model");
        put(m, "os.version", s, "kern.osproductversion");
        return m;
    }

    private static void put(Map<String, String> m, String key, MacSystem s, String sysctl) {
        try {
            String v = s.sysctlString(sysctl);
            if (!v.isBlank()) {
                m.put(key, v);
            }
        } catch (java.io.IOException e) {
            // absent attribute, not a wrong one
        }
    }
}
