package io.tailwatch.core.host.platform;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.linux.LinuxSources;
import io.tailwatch.core.host.macos.MacSources;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Chooses the samplers for the operating system the agent runs on. */
public final class HostSources {
    private HostSources() {
    }

    public static boolean isMac() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("mac");
    }

    /** This host's process table (libproc on macOS, /proc elsewhere), opened on first use and shared. */
    private static final io.tailwatch.core.host.Lazy<io.tailwatch.core.host.ProcessTable> PROCESSES = isMac()
            ? io.tailwatch.core.host.Lazy.of("libproc", io.tailwatch.core.host.macos.MacNativeProcessTable::open)
            : io.tailwatch.core.host.Lazy.of("procfs processes",
                    () -> new io.tailwatch.core.host.linux.LinuxProcessTable(java.nio.file.Path.of("/proc")));

    /**
     * The process table of this host, for readers outside host sampling (an engine's runner processes); the samplers
     * keep their own, under the configured procfs root.
     */
    public static io.tailwatch.core.host.Lazy<io.tailwatch.core.host.ProcessTable> processTable() {
        return PROCESSES;
    }

    public static List<Sampler> forThisHost(Config config) {
        if (isMac()) {
            return MacSources.samplers(config);
        }
        return LinuxSources.samplers(config);
    }

    /**
     * The class the native self-check's child process builds to run this platform's probes, or null
     * where no sampler is native (Linux reads procfs and sysfs).
     */
    public static String nativeProbesClass() {
        return isMac() ? io.tailwatch.core.host.macos.MacProbes.class.getName() : null;
    }

    /** Resource attributes only the platform can tell (chip, model, OS version); may be empty. */
    public static Map<String, String> resourceAttributes() {
        return isMac() ? MacSources.resourceAttributes() : Map.of();
    }

    /** A stable identifier of this machine where the OS keeps one outside /etc (macOS kern.uuid); else null. */
    public static String machineId() {
        return isMac() ? MacSources.machineId() : null;
    }
}
