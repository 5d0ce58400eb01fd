package io.tailwatch.tools.capacity;

import io.tailwatch.core.host.platform.HostSources;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Chip and OS names for reports. Unknown values are null; reading them never fails a run. */
public final class HostFacts {
    private HostFacts() {
    }

    /** "Apple M2 Ultra (Mac14,14)" on macOS, the CPU model name on Linux, or null. */
    public static String chip() {
        try {
            if (HostSources.isMac()) {
                java.util.Map<String, String> attrs = HostSources.resourceAttributes();
                String brand = attrs.get("host.cpu.model");
                String model = attrs.get("host.model");
                if (brand == null) {
                    return model;
                }
                return model == null ? brand : brand + " (" + model + ")";
            }
            return cpuModel(Path.of("/proc/cpuinfo"));
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    static String cpuModel(Path cpuinfo) {
        try {
            List<String> lines = Files.readAllLines(cpuinfo, StandardCharsets.UTF_8);
            for (String key : new String[] {"model name", "Hardware", "Model", "cpu model"}) {
                for (String line : lines) {
                    int colon = line.indexOf(':');
                    if (colon > 0 && line.substring(0, colon).trim().equals(key)) {
                        String v = line.substring(colon + 1).trim();
                        if (!v.isEmpty()) {
                            return v;
                        }
                    }
                }
            }
        } catch (java.io.IOException e) {
            return null;
        }
        return null;
    }

    /** "macOS 15.5", "Ubuntu 24.04.1 LTS (Linux 6.8.0)" and the like. */
    public static String os() {
        String name = System.getProperty("os.name", "unknown");
        String version = System.getProperty("os.version", "");
        if (HostSources.isMac()) {
            String product = null;
            try {
                product = HostSources.resourceAttributes().get("os.version");
            } catch (RuntimeException | LinkageError e) {
                // fall back to the JVM's figure
            }
            return "macOS " + (product != null ? product : version);
        }
        if (name.toLowerCase(Locale.ROOT).startsWith("linux")) {
            String pretty = prettyName(Path.of("/etc/os-release"));
            return pretty == null ? "Linux " + version : pretty + " (Linux " + version + ")";
        }
        return name + " " + version;
    }

    static String prettyName(Path osRelease) {
        try {
            for (String line : Files.readAllLines(osRelease, StandardCharsets.UTF_8)) {
                if (line.startsWith("PRETTY_NAME=")) {
                    String v = line.substring("PRETTY_NAME=".length()).trim();
                    if (v.length() >= 2 && (v.startsWith("\"") || v.startsWith("'"))) {
                        v = v.substring(1, v.length() - 1);
                    }
                    return v.isEmpty() ? null : v;
                }
            }
        } catch (java.io.IOException e) {
            return null;
        }
        return null;
    }
}
