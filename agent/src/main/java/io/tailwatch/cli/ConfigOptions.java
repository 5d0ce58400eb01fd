package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** --config FILE, shared by every command that reads the agent config. */
public final class ConfigOptions {
    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Config file (default: built-in defaults, as config/tailwatch.yaml).")
    public Path config;

    /** Loads the config or prints every problem and returns null (the caller exits 2). */
    public Config loadOrReport() {
        try {
            return config == null ? Config.defaults(System.getenv()) : Config.load(config, System.getenv());
        } catch (ConfigException e) {
            System.err.print(e.problems().render());
            return null;
        } catch (IOException e) {
            System.err.println(config + ": cannot read: " + e.getMessage());
            return null;
        }
    }
}
