package io.tailwatch.tools.capacity;

import java.util.ArrayList;
import java.util.List;

/**
 * The gate before any load is put on an engine: a host that is already short of memory or hot gives
 * numbers that describe the host, not the engine, and more load can tip it into swap.
 */
public final class Preflight {
    /** Below this CPU speed limit the host counts as throttled (macOS CPU_Speed_Limit). */
    public static final double MIN_SPEED_LIMIT = 0.8;

    private Preflight() {
    }

    /**
     * Reasons to refuse, empty when the host may be loaded. Memory pressure critical, thermal pressure
     * heavy or worse, or (on macOS, where the figure is the thermal speed limit) CPU speed limited
     * below 80 %. Unknown figures never refuse. On Linux the speed figure is the cpufreq ratio, which
     * idles low by design, so it is not a throttling signal there.
     */
    public static List<String> refusals(HostFigures h, boolean speedLimitIsThermal) {
        List<String> out = new ArrayList<>();
        if (h.pressureLevel() != null && h.pressureLevel() >= 2) {
            out.add("memory pressure is critical");
        }
        if (h.thermalLevel() != null && h.thermalLevel() >= 2) {
            out.add("thermal pressure is " + HostFigures.thermalName(h.thermalLevel()));
        }
        if (speedLimitIsThermal && h.cpuSpeedLimit() != null && h.cpuSpeedLimit() < MIN_SPEED_LIMIT) {
            out.add(String.format(java.util.Locale.ROOT, "CPU speed limited to %.0f %% (below %.0f %%)",
                    h.cpuSpeedLimit() * 100, MIN_SPEED_LIMIT * 100));
        }
        return out;
    }
}
