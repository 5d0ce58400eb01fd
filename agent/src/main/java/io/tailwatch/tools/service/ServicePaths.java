package io.tailwatch.tools.service;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where the agent's launchd service lives: the plist directory, the log directory and the launchd
 * domain. A per-user agent uses ~/Library/LaunchAgents and the gui/UID domain; a system daemon
 * /Library/LaunchDaemons and the system domain. TAILWATCH_HOME replaces the user's home and
 * TAILWATCH_ROOT the file-system root (both for tests and staged installs).
 */
public record ServicePaths(boolean system, Path plistDir, Path logDir, String domain) {
    public static final String HOME_ENV = "TAILWATCH_HOME";
    public static final String ROOT_ENV = "TAILWATCH_ROOT";

    /**
     * Why this user cannot manage the service of this scope, or null when it can: a system daemon needs root;
     * a per-user agent must not be installed under sudo (it would land in root's home and the gui/0 domain).
     */
    public static String rootProblem(boolean system, Map<String, String> env, long uid) {
        if (system && uid != 0) {
            return "--system installs into /Library/LaunchDaemons and needs root: run it with sudo";
        }
        if (!system && uid == 0 && env.get("SUDO_UID") != null) {
            return "run `tailwatch service` without sudo for a per-user agent, or add --system for a system daemon";
        }
        return null;
    }

    public static ServicePaths of(boolean system, Map<String, String> env, long uid) {
        if (system) {
            Path root = Path.of(env.getOrDefault(ROOT_ENV, "/"));
            return new ServicePaths(true, root.resolve("Library/LaunchDaemons"), root.resolve("Library/Logs/tailwatch"),
                    "system");
        }
        Path home = userHome(env);
        return new ServicePaths(false, home.resolve("Library/LaunchAgents"), home.resolve("Library/Logs/tailwatch"),
                "gui/" + uid);
    }

    public static Path userHome(Map<String, String> env) {
        String h = env.get(HOME_ENV);
        return Path.of(h != null && !h.isBlank() ? h : System.getProperty("user.home"));
    }

    public Path plist(String label) {
        return plistDir.resolve(label + ".plist");
    }

    /** The launchd service target, DOMAIN/LABEL, as kickstart, print and bootout take it. */
    public String target(String label) {
        return domain + "/" + label;
    }
}
