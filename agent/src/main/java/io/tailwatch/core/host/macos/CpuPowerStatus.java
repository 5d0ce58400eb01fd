package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Decodes the dictionary of {@code IOPMCopyCPUPowerStatus}. Intel Macs report CPU_Speed_Limit (a
 * percentage of full speed); Apple Silicon records none (kIOReturnNotFound, a null map here), which
 * means "not available" and is not an error.
 */
public final class CpuPowerStatus {
    public static final String SPEED_LIMIT = "CPU_Speed_Limit";
    public static final String SCHEDULER_LIMIT = "CPU_Scheduler_Limit";
    public static final String AVAILABLE_CPUS = "CPU_Available_CPUs";

    private CpuPowerStatus() {
    }

    /** The speed limit as a ratio of full speed, or empty when this machine records none. */
    public static OptionalDouble speedLimitRatio(Map<String, Long> status) throws IOException {
        if (status == null) {
            return OptionalDouble.empty();
        }
        Long v = status.get(SPEED_LIMIT);
        if (v == null) {
            return OptionalDouble.empty();
        }
        if (v < 0 || v > 100) {
            throw new IOException(SPEED_LIMIT + ": " + v + " is not a percentage");
        }
        return OptionalDouble.of(v / 100.0);
    }
}
