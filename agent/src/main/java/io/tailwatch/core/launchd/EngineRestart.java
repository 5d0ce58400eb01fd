package io.tailwatch.core.launchd;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import java.io.IOException;

/**
 * Restarts an engine that runs under launchd: `launchctl kickstart -k DOMAIN/LABEL` with the label
 * from the engine's config (launchd_label). The runbook's fix when a grown KV cache pushed the host
 * into swap.
 */
public final class EngineRestart {
    private final Config config;
    private final Launchctl launchctl;
    private final String domain;

    public EngineRestart(Config config, Launchctl launchctl, String domain) {
        this.config = config;
        this.launchctl = launchctl;
        this.domain = domain;
    }

    /** Why the engine cannot be restarted, or null. */
    public String problem(String engine) {
        EngineConfig e = config.engine(engine);
        if (e == null) {
            return "no engine named '" + engine + "' in " + config.source();
        }
        if (e.launchdLabel() == null) {
            return "engine '" + engine + "' has no launchd_label in " + config.source()
                    + "; set it to the label of the launchd service that runs the engine";
        }
        return null;
    }

    public boolean known(String engine) {
        return config.engine(engine) != null;
    }

    /** DOMAIN/LABEL of the engine's service; the engine must pass {@link #problem}. */
    public String target(String engine) {
        return domain + "/" + config.engine(engine).launchdLabel();
    }

    /** The command as shown to the operator before it runs. */
    public String describe(String engine) {
        return "launchctl kickstart -k " + target(engine);
    }

    public Launchctl.Result restart(String engine) throws IOException, Launchctl.NotFound {
        String p = problem(engine);
        if (p != null) {
            throw new IllegalArgumentException(p);
        }
        return launchctl.kickstart(target(engine));
    }
}
