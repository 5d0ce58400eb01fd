package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** Config tools. */
@Command(name = "config", description = "Work with the config file.", subcommands = {ConfigCommand.Check.class, ConfigCommand.Defaults.class})
public final class ConfigCommand {

    @Command(name = "check", description = "Validate a config file: exit 0, or 2 printing every problem with line, column and key.")
    static final class Check extends PrintingCommand {

        @Parameters(paramLabel = "FILE")
        Path file;

        @Override
        protected int run(PrintWriter out, PrintWriter err) {
            try {
                Config c = Config.load(file, System.getenv());
                String otlp = io.tailwatch.metrics.OtlpExporter.check(c.otlp().settings(), System.getenv());
                if (otlp != null) {
                    err.println(file + ": otlp: " + otlp);
                    return TailwatchCommand.EXIT_CONFIG;
                }
                String memory = io.tailwatch.daemon.MemoryBudget.refusal(c, io.tailwatch.daemon.MemoryBudget.heap(c));
                if (memory != null) {
                    err.println(file + ": " + memory);
                    return TailwatchCommand.EXIT_CONFIG;
                }
                String exposure = io.tailwatch.daemon.api.ListenerSecurity.warning(c.server());
                if (exposure != null) {
                    out.println(file + ": warning: " + exposure);
                }
                out.println(file + ": ok");
                return TailwatchCommand.EXIT_OK;
            } catch (ConfigException e) {
                err.print(e.problems().render());
                return TailwatchCommand.EXIT_CONFIG;
            } catch (IOException e) {
                err.println(file + ": cannot read: " + e.getMessage());
                return TailwatchCommand.EXIT_CONFIG;
            }
        }
    }

    @Command(name = "defaults", description = "Print the built-in default config (config/tailwatch.yaml).")
    static final class Defaults extends PrintingCommand {

        @Override
        protected int run(PrintWriter out, PrintWriter err) {
            out.print(Config.defaultText());
            return TailwatchCommand.EXIT_OK;
        }
    }
}
