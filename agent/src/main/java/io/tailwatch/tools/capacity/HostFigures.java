package io.tailwatch.tools.capacity;

import io.tailwatch.core.host.HostSnapshot;
import java.time.Instant;

/**
 * The host figures a capacity run records before and after each step. Null = unknown on this host
 * (never zero).
 *
 * @param pressureLevel   memory pressure 0 normal, 1 warning, 2 critical
 * @param thermalLevel    thermal pressure 0 nominal, 1 moderate, 2 heavy, 3 trapping, 4 sleeping
 * @param cpuSpeedLimit   CPU speed limit ratio (macOS)
 * @param footprintBytes  the engine's process footprint (macOS), else its summed PSS (Linux), else its RSS
 * @param powerWatts      whole-host power over the last sample interval
 */
public record HostFigures(Instant at, Double swapUsedBytes, Double memoryTotalBytes, Double memoryAvailableBytes,
                          Double pressureLevel, Double thermalLevel, Double cpuSpeedLimit, Double footprintBytes,
                          Double powerWatts) {

    public static final HostFigures UNKNOWN = new HostFigures(null, null, null, null, null, null, null, null, null);

    public static HostFigures of(HostSnapshot s, String engine) {
        if (s == null) {
            return UNKNOWN;
        }
        Double footprint = null;
        if (engine != null) {
            footprint = s.processFootprint(engine);
            if (footprint == null) {
                footprint = s.processPss(engine);
            }
            if (footprint == null) {
                footprint = s.processRss(engine);
            }
        }
        return new HostFigures(s.at(), s.swapUsed(), s.memoryTotal(), s.memoryAvailable(), s.pressureLevel(),
                s.thermalLevel(), s.cpuSpeedLimit(), footprint, hostPower(s));
    }

    /**
     * Whole-host power: psys (platform) where the host has it, else package plus DRAM, else the sum
     * of the component rails (Apple Silicon: CPU, GPU, ANE, DRAM). Null when no rail is known.
     */
    static Double hostPower(HostSnapshot s) {
        Double psys = s.power("psys");
        if (psys != null) {
            return psys;
        }
        Double pkg = s.power("package");
        if (pkg != null) {
            Double dram = s.power("dram");
            return dram == null ? pkg : pkg + dram;
        }
        Double sum = null;
        for (String rail : new String[] {"cpu", "gpu", "ane", "dram"}) {
            Double w = s.power(rail);
            if (w != null) {
                sum = sum == null ? w : sum + w;
            }
        }
        return sum;
    }

    public static String pressureName(Double level) {
        if (level == null) {
            return "unknown";
        }
        return switch ((int) Math.round(level)) {
            case 0 -> "normal";
            case 1 -> "warning";
            case 2 -> "critical";
            default -> "level " + level.intValue();
        };
    }

    public static String thermalName(Double level) {
        if (level == null) {
            return "unknown";
        }
        return switch ((int) Math.round(level)) {
            case 0 -> "nominal";
            case 1 -> "moderate";
            case 2 -> "heavy";
            case 3 -> "trapping";
            case 4 -> "sleeping";
            default -> "level " + level.intValue();
        };
    }
}
