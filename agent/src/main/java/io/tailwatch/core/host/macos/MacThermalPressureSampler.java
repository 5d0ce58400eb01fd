package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;

/**
 * Thermal pressure level (0 nominal ... 4 sleeping) from the notify state of
 * {@code com.apple.system.thermalpressurelevel}. "Nominal" does not prove the clocks are not
 * lowered; GPU frequency is the stronger signal.
 */
public final class MacThermalPressureSampler implements NativeSampler, AutoCloseable {
    private final Lazy<ThermalPressureSource> source;

    public MacThermalPressureSampler(Lazy<ThermalPressureSource> source) {
        this.source = source;
    }

    @Override
    public String name() {
        return "thermal";
    }

    @Override
    public String probeId() {
        return MacProbes.NOTIFY;
    }

    @Override
    public List<Point> sample() throws IOException {
        int level = MacLevels.thermalPressure(source.get().thermalPressureState());
        return List.of(Point.of(HostMetrics.THERMAL_LEVEL, level));
    }

    /**
     * Cancels the notify registration (and its Mach port references) if it was opened: the daemon closes
     * its samplers on every reload, so a reload no longer leaks a token.
     */
    @Override
    public void close() {
        ThermalPressureSource s = source.ifOpened();
        if (s instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                // nothing more can be released
            }
        }
    }
}
