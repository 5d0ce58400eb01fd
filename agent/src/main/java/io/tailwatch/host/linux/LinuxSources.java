package io.tailwatch.host.linux;

import io.tailwatch.config.Config;
import io.tailwatch.host.Sampler;
import java.util.List;

/** The Linux samplers, reading procfs and sysfs under the configured roots. */
public final class LinuxSources {
    private LinuxSources() {
    }

    public static List<Sampler> samplers(Config config) {
        var h = config.host();
        return List.of(
                new MemorySampler(h.procfs()),
                new SwapSampler(h.procfs()),
                new PressureSampler(h.procfs()),
                new ThermalSampler(h.sysfs()),
                new CpuFreqSampler(h.sysfs()),
                new RaplSampler(h.sysfs()));
    }
}
