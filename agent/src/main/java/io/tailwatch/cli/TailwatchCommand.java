package io.tailwatch.cli;

import io.tailwatch.core.host.platform.ResourceInfo;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine;

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
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The whole command line: every command's model built (help, tests, completion). */
    public static CommandLine commandLine() {
        return configure(new CommandLine(new TailwatchCommand()));
    }

    /**
     * The command line to run {@code args} with. When the first argument names a command, only that
     * command's model is built under the root: picocli builds a command's model by reflection over its
     * options, and building all of them cost a runbook command about a fifth of its start-up CPU
     * (docs/performance.md, "Runbook command start-up"). Anything else (no argument, an option, help, a
     * misspelt command) gets the whole command line, so the usage and the error list every command.
     */
    public static CommandLine commandLine(String... args) {
        if (args.length == 0 || args.length == 1 && ROOT_ONLY.contains(args[0])) {
            return listing();
        }
        Class<?> only = command(args[0]);
        if (only == null) {
            return commandLine();
        }
        CommandLine.Model.CommandSpec root = CommandLine.Model.CommandSpec.wrapWithoutInspection(new TailwatchCommand());
        root.name(TailwatchCommand.class.getAnnotation(Command.class).name());
        CommandLine cl = new CommandLine(root);
        cl.addSubcommand(only);
        return configure(cl);
    }

    /** Arguments that only print the root's usage or version. */
    private static final List<String> ROOT_ONLY = List.of("--help", "-h", "--version", "-V");

    /**
     * The command line for the root's own usage and version: each command is listed from its
     * {@code @Command} annotation (name, aliases, header, description) without building its model, the
     * largest part of printing the usage (docs/performance.md, "Runbook command start-up"). The usage it
     * prints is the whole command line's (CommandRoutingTest).
     */
    static CommandLine listing() {
        Command root = TailwatchCommand.class.getAnnotation(Command.class);
        TailwatchCommand command = new TailwatchCommand();
        CommandLine.Model.CommandSpec spec = CommandLine.Model.CommandSpec.wrapWithoutInspection(command);
        command.spec = spec;
        spec.name(root.name()).mixinStandardHelpOptions(root.mixinStandardHelpOptions()).versionProvider(new Version());
        spec.usageMessage().description(root.description());
        CommandLine cl = new CommandLine(spec);
        for (Class<?> c : root.subcommands()) {
            Command a = c.getAnnotation(Command.class);
            CommandLine.Model.CommandSpec sub = CommandLine.Model.CommandSpec.create().name(a.name()).aliases(a.aliases());
            sub.usageMessage().header(a.header()).description(a.description()).hidden(a.hidden());
            cl.addSubcommand(a.name(), new CommandLine(sub));
        }
        return configure(cl);
    }

    /** The command class whose name (or alias) is {@code name}, or null; never the help command. */
    static Class<?> command(String name) {
        for (Class<?> c : TailwatchCommand.class.getAnnotation(Command.class).subcommands()) {
            Command a = c.getAnnotation(Command.class);
            if (a == null || c == CommandLine.HelpCommand.class) {
                continue;
            }
            if (a.name().equals(name) || List.of(a.aliases()).contains(name)) {
                return c;
            }
        }
        return null;
    }

    private static CommandLine configure(CommandLine cl) {
        uniform(cl);
        // Wrap help at the terminal's width (80 columns when it cannot be told), at word boundaries.
        cl.setUsageHelpAutoWidth(true);
        // No colour codes in help: every writer escapes control characters (see the execution strategy).
        cl.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        // Every command prints through picocli's writers (getOut/getErr), so a caller can capture them. The
        // writers flush by themselves only at println/printf, so the command's writers are flushed when it
        // returns. Only the executed command's: asking a parent for a writer it has not made yet would make
        // one and hand it to every subcommand, dropping the subcommand's unflushed text.
        cl.setExecutionStrategy(parsed -> {
            // Everything a command prints passes the terminal rule (core/logging/SafeText): model names,
            // versions and error bodies come from engines and the agent's answers.
            List<CommandLine> commands = parsed.asCommandLineList();
            CommandLine last = commands.get(commands.size() - 1);
            last.setOut(new java.io.PrintWriter(new io.tailwatch.core.text.SafeText.TerminalWriter(last.getOut()), true));
            last.setErr(new java.io.PrintWriter(new io.tailwatch.core.text.SafeText.TerminalWriter(last.getErr()), true));
            try {
                return new CommandLine.RunLast().execute(parsed);
            } finally {
                List<CommandLine> chain = parsed.asCommandLineList();
                CommandLine executed = chain.get(chain.size() - 1);
                executed.getOut().flush();
                executed.getErr().flush();
            }
        });
        cl.setParameterExceptionHandler((ex, args) -> {
            ex.getCommandLine().getErr().println(ex.getMessage());
            ex.getCommandLine().usage(ex.getCommandLine().getErr());
            return EXIT_CONFIG;
        });
        return cl;
    }

    /**
     * Every command and subcommand answers --help/-h (and -V) with exit 0; hand-wrapped description lines
     * become one paragraph that picocli wraps at the terminal width; command lists show each command's whole
     * first sentence.
     */
    static void uniform(CommandLine c) {
        CommandLine.Model.CommandSpec spec = c.getCommandSpec();
        if (!spec.optionsMap().containsKey("--help")) {
            spec.mixinStandardHelpOptions(true);
        }
        if (spec.versionProvider() == null) {
            spec.versionProvider(new Version());
        }
        String[] d = spec.usageMessage().description();
        if (d.length > 1) {
            spec.usageMessage().description(String.join(" ", d).replaceAll("\\s+", " ").strip());
        }
        c.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_COMMAND_LIST, TailwatchCommand::commandList);
        for (CommandLine sub : c.getSubcommands().values()) {
            uniform(sub);
        }
    }

    /** The first sentence of a command's description: its one-line summary. */
    static String summary(CommandLine.Model.CommandSpec spec) {
        String[] h = spec.usageMessage().header();
        String text = h.length > 0 ? String.join(" ", h) : String.join(" ", spec.usageMessage().description());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(.*?[.!?])\\s+(?=[A-Z(])").matcher(text.strip());
        return m.find() ? m.group(1) : text.strip();
    }

    private static String commandList(CommandLine.Help help) {
        Map<String, CommandLine.Help> subs = help.subcommands();
        if (subs.isEmpty()) {
            return "";
        }
        int nameWidth = 0;
        for (String n : subs.keySet()) {
            nameWidth = Math.max(nameWidth, n.length());
        }
        int width = help.commandSpec().usageMessage().width();
        CommandLine.Help.TextTable t = CommandLine.Help.TextTable.forColumns(help.colorScheme(),
                new CommandLine.Help.Column(nameWidth + 4, 2, CommandLine.Help.Column.Overflow.SPAN),
                new CommandLine.Help.Column(Math.max(20, width - nameWidth - 4), 0, CommandLine.Help.Column.Overflow.WRAP));
        for (Map.Entry<String, CommandLine.Help> e : subs.entrySet()) {
            t.addRowValues(e.getKey(), summary(e.getValue().commandSpec()));
        }
        return t.toString();
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
