package io.tailwatch.host;

import io.tailwatch.config.Config;
import io.tailwatch.host.linux.LinuxSources;
import java.util.List;
import java.util.Locale;

/** Chooses the samplers for the operating system the agent runs on. */
public final class HostSources {
    private HostSources() {
    }

    public static boolean isMac() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("mac");
    }

    public static List<Sampler> forThisHost(Config config) {
        if (isMac()) {
            return List.of();
        }
        return LinuxSources.samplers(config);
    }
}
