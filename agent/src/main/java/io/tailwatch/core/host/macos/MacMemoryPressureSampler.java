package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;

/**
 * The kernel's own memory pressure: {@code kern.memorystatus_vm_pressure_level} (1/2/4 exported as
 * 0/1/2) and {@code kern.memorystatus_level} (free percentage, exported as a ratio). Pressure can
 * read normal while swap is nearly full; swap is its own signal.
 */
public final class MacMemoryPressureSampler implements NativeSampler {
    private final Lazy<MacSystem> system;

    public MacMemoryPressureSampler(Lazy<MacSystem> system) {
        this.system = system;
    }

    @Override
    public String name() {
        return "pressure";
    }

    @Override
    public String probeId() {
        return MacProbes.LIBSYSTEM;
    }

    @Override
    public List<Point> sample() throws IOException {
        MacSystem s = system.get();
        int level = MacLevels.memoryPressure(s.sysctlLong("kern.memorystatus_vm_pressure_level"));
        double free = MacLevels.freeRatio(s.sysctlLong("kern.memorystatus_level"));
        return List.of(Point.of(HostMetrics.PRESSURE_LEVEL, level), Point.of(HostMetrics.MEMORY_FREE_RATIO, free));
    }
}
