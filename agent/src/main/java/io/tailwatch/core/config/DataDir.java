package io.tailwatch.core.config;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's data directory, where every small state file lives: {@code history.db} (ladder, bench and
 * baseline runs), {@code baselines.json} (the alert baselines, unless {@code alerts.baseline.file} names
 * another file) and {@code native-selfcheck.json}. The daemon, the runbook commands and {@code doctor}
 * all ask this one function, so the files always move together.
 *
 * <ol>
 *   <li>{@code TAILWATCH_DATA_DIR} when set and not blank;</li>
 *   <li>on macOS {@code ~/Library/Application Support/tailwatch};</li>
 *   <li>elsewhere {@code $XDG_DATA_HOME/tailwatch} when that is an absolute path (the XDG base-directory
 *       rule: a relative value is ignored), else {@code ~/.local/share/tailwatch}.</li>
 * </ol>
 * The home directory is {@code $HOME} when set to an absolute path, else the JVM's {@code user.home}.
 */
public final class DataDir {
    /** The variable that moves the data directory. */
    public static final String ENV = "TAILWATCH_DATA_DIR";

    private DataDir() {
    }

    /** The data directory for this process's OS and home. */
    public static Path of(Map<String, String> env) {
        return of(env, System.getProperty("os.name", ""), System.getProperty("user.home"));
    }

    /** The data directory for the given environment, {@code os.name} and {@code user.home}. */
    public static Path of(Map<String, String> env, String osName, String userHome) {
        String override = env.get(ENV);
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        String homeVar = env.get("HOME");
        String home = homeVar != null && !homeVar.isBlank() && Path.of(homeVar).isAbsolute() ? homeVar : userHome;
        if (osName.toLowerCase(Locale.ROOT).startsWith("mac")) {
            return Path.of(home, "Library", "Application Support", "tailwatch");
        }
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "tailwatch");
        }
        return Path.of(home, ".local", "share", "tailwatch");
    }
}
