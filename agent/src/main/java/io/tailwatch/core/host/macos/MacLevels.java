package io.tailwatch.core.host.macos;

import java.io.IOException;

/** The macOS kernel's pressure enumerations and how tailwatch exports them. */
public final class MacLevels {
    private MacLevels() {
    }

    /**
     * {@code kern.memorystatus_vm_pressure_level}: 1 normal, 2 warning (the kernel's warning and
     * urgent both read 2), 4 critical; exported as 0, 1, 2. Any other value is refused rather than
     * guessed.
     */
    public static int memoryPressure(long kernelLevel) throws IOException {
        if (kernelLevel == 1) {
            return 0;
        }
        if (kernelLevel == 2) {
            return 1;
        }
        if (kernelLevel == 4) {
            return 2;
        }
        throw new IOException("kern.memorystatus_vm_pressure_level: unknown value " + kernelLevel
                    + " (expected 1, 2 or 4)");
    }

    public static String memoryPressureName(int level) {
        return switch (level) {
            case 0 -> "normal";
            case 1 -> "warning";
            case 2 -> "critical";
            default -> "unknown";
        };
    }

    /** {@code kern.memorystatus_level} is a percentage of pages available; exported as a ratio. */
    public static double freeRatio(long percent) throws IOException {
        if (percent < 0 || percent > 100) {
            throw new IOException("kern.memorystatus_level: " + percent + " is not a percentage");
        }
        return percent / 100.0;
    }

    /**
     * The state of notification {@code com.apple.system.thermalpressurelevel}: 0 nominal, 1 moderate,
     * 2 heavy, 3 trapping, 4 sleeping. Exported as is.
     */
    public static int thermalPressure(long state) throws IOException {
        if (state < 0 || state > 4) {
            throw new IOException("com.apple.system.thermalpressurelevel: unknown state " + state + " (expected 0-4)");
        }
        return (int) state;
    }

    public static String thermalPressureName(int level) {
        return switch (level) {
            case 0 -> "nominal";
            case 1 -> "moderate";
            case 2 -> "heavy";
            case 3 -> "trapping";
            case 4 -> "sleeping";
            default -> "unknown";
        };
    }
}
