package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.core.host.NativeProbes;
import java.util.List;
import java.util.Set;

/**
 * The macOS native probes the self-check runs in its child process: each makes the calls of the
 * samplers that name it, once, and releases what it opened. docs/macos.md lists them.
 */
public final class MacProbes implements NativeProbes {
    public static final String LIBSYSTEM = "libsystem";
    public static final String CPU = "cpu";
    public static final String DEVICE_TREE_CPUS = "device-tree-cpus";
    public static final String NOTIFY = "notify";
    public static final String POWER_STATUS = "power-status";
    public static final String IOREPORT_ENERGY = "ioreport-energy";
    public static final String IOREPORT_GPU = "ioreport-gpu";
    public static final String IOREPORT_CLPC = "ioreport-clpc";
    public static final String IOREPORT_ANE = "ioreport-ane";
    public static final String TASK_VM_INFO = "task-vm-info";
    public static final String LIBPROC = "libproc";
    public static final String METAL = "metal";
    public static final String ACCELERATOR = "accelerator";
    public static final String ACCELERATOR_CLIENTS = "accelerator-clients";
    public static final String SMC = "smc";
    public static final String BATTERY = "battery";

    public MacProbes() {
    }

    @Override
    public List<NativeProbe> probes() {
        return List.of(
                NativeProbe.of(LIBSYSTEM, () -> {
                    MacSystem s = MacNativeSystem.open();
                    s.sysctlLong("hw.memsize");
                    s.sysctlString("kern.osproductversion");
                    s.sysctlStruct("vm.swapusage", XswUsage.SIZE);
                    s.vmStatistics64();
                    s.pageSize();
                    s.processorCpuLoadInfo();
                    s.sysctlLong("kern.memorystatus_vm_pressure_level");
                    s.sysctlLong("kern.memorystatus_level");
                }),
                NativeProbe.of(CPU, () -> MacNativeSystem.open().processorCpuLoadInfo()),
                NativeProbe.of(DEVICE_TREE_CPUS, () -> {
                    MacSystem s = MacNativeSystem.open();
                    s.processorCpuLoadInfo();
                    CpuTopology.perfLevels(s);
                    DeviceTreeCpus.decode(MacNativeDeviceTree.cpus());
                }),
                NativeProbe.of(NOTIFY, () -> {
                    try (MacNativeNotify n = MacNativeNotify.open()) {
                        n.thermalPressureState();
                    }
                }),
                NativeProbe.of(POWER_STATUS, () -> MacNativePowerStatus.open().cpuPowerStatus()),
                NativeProbe.of(IOREPORT_ENERGY, () -> twoSamples(MacNativeIOReport.open(EnergyModel.GROUP, null,
                        n -> EnergyModel.rail(n) != null))),
                NativeProbe.of(IOREPORT_CLPC, () -> {
                    try (IOReportSource s = MacNativeIOReport.open(ClpcEnergy.GROUP, ClpcEnergy.SUBGROUP, n -> ClpcEnergy.rail(n) != null)) {
                        s.next();
                        ClpcEnergy.checkLayout(s.next());
                    }
                }),
                NativeProbe.of(IOREPORT_ANE, () -> {
                    try (IOReportSource s = MacNativeIOReport.open(AneResidency.GROUP, null, AneResidency::wanted)) {
                        s.next();
                        AneResidency.checkLayout(s.next().channels());
                    }
                }),
                NativeProbe.of(IOREPORT_GPU, () -> {
                    twoSamples(MacNativeIOReport.open(GpuResidency.GROUP, GpuResidency.SUBGROUP, GpuResidency.CHANNEL::equals));
                    MacNativeGpuTable.read();
                }),
                NativeProbe.of(LIBPROC, () -> {
                    MacNativeProcessTable t = MacNativeProcessTable.open();
                    t.processes();
                    t.memory((int) ProcessHandle.current().pid());
                    t.listening(Set.of(1));
                }),
                NativeProbe.of(TASK_VM_INFO, () -> {
                    TaskVmSource.Raw raw = MacNativeTaskVm.open().read((int) ProcessHandle.current().pid());
                    if (raw == null) {
                        throw new java.io.IOException("task_info(TASK_VM_INFO) of the agent's own process was refused");
                    }
                    TaskVmInfo.checkLayout(raw.bytes(), raw.words());
                }),
                NativeProbe.of(METAL, () -> MacNativeMetal.open().recommendedMaxWorkingSetSize()),
                NativeProbe.of(ACCELERATOR, () -> MacNativeAccelerator.open().performanceStatistics()),
                NativeProbe.of(ACCELERATOR_CLIENTS, () -> MacNativeAccelerator.open().userClients()),
                NativeProbe.of(SMC, () -> {
                    try (Smc smc = new Smc(MacNativeSmc.open())) {
                        smc.read(MacSystemPowerSampler.KEY);
                        smc.read("FNum");
                        for (String aggregate : MacSmcTemperatureSampler.AGGREGATES.keySet()) {
                            if (smc.keyInfo(aggregate) != null) {
                                smc.read(aggregate);
                            }
                        }
                        smc.keyCount();
                        smc.keyAt(0);
                    }
                }),
                NativeProbe.of(BATTERY, () -> MacNativeBattery.open().read()));
    }

    private static void twoSamples(IOReportSource source) throws java.io.IOException {
        try (source) {
            source.next();
            source.next();
        }
    }
}
