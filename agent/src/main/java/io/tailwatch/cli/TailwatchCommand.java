package io.tailwatch.cli;

import io.tailwatch.daemon.ResourceInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The tailwatch command and its subcommands. Exit codes: 0 ok, 1 failure, 2 bad config or usage. */
@Command(name = "tailwatch", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class,
        description = "Observability agent for LLM engines on Apple Silicon Macs and Linux hosts.",
        subcommands = {
                RunCommand.class,
                ConfigCommand.class,
                MetricsCommand.class,
                RulesCommand.class,
                StatusCommand.class,
                DiagnoseCommand.class,
                ProbeCommand.class,
                SimulateCommand.class,
                DoctorCommand.class,
                ServiceCommand.class,
                EngineCommand.class,
                LadderCommand.class,
                BenchCommand.class,
                HistoryCommand.class,
                KvBudgetCommand.class,
                DetectCommand.class,
                CommandLine.HelpCommand.class
        })
public final class TailwatchCommand implements Runnable {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_CONFIG = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new TailwatchCommand());
        cl.setParameterExceptionHandler((ex, args) -> {
            ex.getCommandLine().getErr().println(ex.getMessage());
            ex.getCommandLine().usage(ex.getCommandLine().getErr());
            return EXIT_CONFIG;
        });
        return cl;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"tailwatch " + ResourceInfo.version(),
                    "Java " + System.getProperty("java.version") + " on " + System.getProperty("os.name") + " "
                            + System.getProperty("os.arch")};
        }
    }
}
