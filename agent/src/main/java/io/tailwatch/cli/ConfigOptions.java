package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** --config FILE, shared by every command that reads the agent config. */
public final class ConfigOptions {
    @Option(names = {"-c", "--config"}, paramLabel = "FILE", description = "Config file (default: built-in defaults, as config/tailwatch.yaml).")
    public Path config;

    /** The command this option is mixed into: its error writer gets the problems. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** Loads the config or prints every problem on the command's error writer and returns null (the caller exits 2). */
    public Config loadOrReport() {
        return loadOrReport(mixee.commandLine().getErr());
    }

    /** Loads the config or prints every problem on {@code err} and returns null (the caller exits 2). */
    public Config loadOrReport(PrintWriter err) {
        try {
            return config == null ? Config.defaults(System.getenv()) : Config.load(config, System.getenv());
        } catch (ConfigException e) {
            err.print(e.problems().render());
            err.flush();
            return null;
        } catch (IOException e) {
            err.println(config + ": cannot read: " + e.getMessage());
            return null;
        }
    }
}
