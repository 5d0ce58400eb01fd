package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.launchd.EngineRestart;
import io.tailwatch.core.launchd.Launchctl;
import io.tailwatch.core.launchd.UserId;
import java.io.IOException;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** Runbook actions on an engine. */
@Command(name = "engine", description = "Runbook actions on a local engine.", subcommands = {EngineCommand.Restart.class})
public final class EngineCommand {

    @Command(name = "restart", description = "Restart an engine that runs under launchd (launchctl kickstart -k on its "
            + "launchd_label): frees a KV cache that grew into swap. Needs --yes.")
    static final class Restart extends PrintingCommand {
        @Mixin
        ConfigOptions options;
        @Parameters(paramLabel = "NAME", description = "Engine name from the config.")
        String name;
        @Option(names = "--yes", description = "Really restart (without it, only print what would run).")
        boolean yes;
        @Option(names = "--system", description = "The engine runs as a system daemon (launchd domain system, not gui/UID).")
        boolean system;

        @Override
        protected int run(PrintWriter out, PrintWriter err) {
            try {
                Config config = options.loadOrReport();
                if (config == null) {
                    return TailwatchCommand.EXIT_CONFIG;
                }
                String domain = system ? "system" : "gui/" + UserId.current();
                EngineRestart restart = new EngineRestart(config, new Launchctl(System.getenv()), domain);
                String problem = restart.problem(name);
                if (problem != null) {
                    err.println(problem);
                    return TailwatchCommand.EXIT_CONFIG;
                }
                out.println("will run: " + restart.describe(name));
                out.println("  launchd kills the running engine '" + name + "' (in-flight requests fail) and starts it "
                        + "again; its memory, KV cache included, is freed");
                if (!yes) {
                    err.println("not done: add --yes to restart the engine");
                    return TailwatchCommand.EXIT_CONFIG;
                }
                Launchctl.Result r = restart.restart(name);
                if (!r.output().isBlank()) {
                    out.print(r.output().endsWith("\n") ? r.output() : r.output() + "\n");
                }
                if (!r.ok()) {
                    err.println(r.commandLine() + " failed (exit " + r.exitCode() + ")");
                    return TailwatchCommand.EXIT_FAILURE;
                }
                out.println("restarted " + name);
                return TailwatchCommand.EXIT_OK;
            } catch (Launchctl.NotFound e) {
                err.println(e.getMessage());
                return TailwatchCommand.EXIT_FAILURE;
            } catch (IOException e) {
                err.println("cannot run launchctl: " + e.getMessage());
                return TailwatchCommand.EXIT_FAILURE;
            } finally {
                out.flush();
                err.flush();
            }
        }
    }
}
