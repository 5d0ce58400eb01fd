package io.tailwatch.core.host.linux;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.ProcessTable;
import io.tailwatch.core.host.Sampler;
import java.util.List;

/** The Linux samplers, reading procfs and sysfs under the configured roots. */
public final class LinuxSources {
    private LinuxSources() {
    }

    /** Engine processes are looked up again every this many samples (and whenever one has gone). */
    static final int REDISCOVER_EVERY = 12;

    public static List<Sampler> samplers(Config config) {
        var h = config.host();
        Lazy<ProcessTable> processes = Lazy.of("procfs processes", () -> new LinuxProcessTable(h.procfs()));
        return List.of(
                new MemorySampler(h.procfs()),
                new CpuStatSampler(h.procfs(), h.perCpu()),
                new SwapSampler(h.procfs()),
                new PagingSampler(h.procfs()),
                new PressureSampler(h.procfs()),
                CpuIoPressureSampler.cpu(h.procfs()),
                CpuIoPressureSampler.io(h.procfs()),
                new LoadAverageSampler(h.procfs()),
                new ThermalSampler(h.sysfs()),
                new CpuFreqSampler(h.sysfs()),
                new RaplSampler(h.sysfs()),
                new EngineProcessSampler(config.engines(), processes, REDISCOVER_EVERY));
    }
}
