package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command line Main runs with builds only the invoked command's model, and that command behaves
 * exactly as in the whole command line: same help, same usage errors, same exit codes.
 */
class CommandRoutingTest {
    private static List<String> names() {
        List<String> names = new ArrayList<>(TailwatchCommand.commandLine().getSubcommands().keySet());
        names.remove("help");
        return names;
    }

    record Run(int exit, String out, String err) {
    }

    private static Run run(CommandLine cl, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void aNamedCommandIsTheOnlyOneBuiltAndAnswersAsInTheWholeCommandLine() {
        List<String> names = names();
        assertThat(names).hasSizeGreaterThan(10).contains("status", "diagnose", "kv-budget", "probe", "run");
        for (String name : names) {
            CommandLine routed = TailwatchCommand.commandLine(name, "--help");
            assertThat(routed.getSubcommands().keySet()).as(name).containsExactly(name);
            for (String[] args : new String[][] {{name, "--help"}, {name, "--no-such-option"}}) {
                Run whole = run(TailwatchCommand.commandLine(), args);
                Run one = run(TailwatchCommand.commandLine(args), args);
                assertThat(one).as(String.join(" ", args)).isEqualTo(whole);
            }
        }
        // A usage error names the command as the whole command line does.
        assertThat(run(TailwatchCommand.commandLine("status", "--no-such-option"), "status", "--no-such-option").err())
                .contains("Usage: tailwatch status");
    }

    @Test
    void theRootsUsageAndVersionListEveryCommandWithoutBuildingTheirModels() {
        CommandLine whole = TailwatchCommand.commandLine();
        for (String[] args : new String[][] {{}, {"--help"}, {"-h"}, {"-V"}, {"--version"}}) {
            CommandLine listing = TailwatchCommand.commandLine(args);
            assertThat(listing.getSubcommands().keySet()).as(String.join(" ", args))
                    .containsExactlyElementsOf(whole.getSubcommands().keySet());
            assertThat(listing.getSubcommands().get("status").getCommandSpec().options())
                    .as("no option of a command is built, only its standard help options")
                    .allMatch(o -> o.usageHelp() || o.versionHelp());
            assertThat(listing.getSubcommands().get("status").getCommandSpec().userObject() instanceof StatusCommand)
                    .as("the status command itself is not made").isFalse();
            Run one = run(listing, args);
            Run all = run(TailwatchCommand.commandLine(), args);
            assertThat(one).as(String.join(" ", args)).isEqualTo(all);
            assertThat(one.exit()).isZero();
        }
        Run usage = run(TailwatchCommand.commandLine("--help"), "--help");
        assertThat(usage.out()).startsWith("Usage: tailwatch [-hV] [COMMAND]").contains("Commands:")
                .contains("kv-budget").contains("  status ").contains("  help ");
        assertThat(usage.err()).isEmpty();
        assertThat(run(TailwatchCommand.commandLine(), new String[0]).out()).isEqualTo(usage.out());
    }

    @Test
    void theListingHasEveryCommandsSummaryAtAnyWidth() {
        for (int width : new int[] {55, 80, 120, 200}) {
            CommandLine listing = TailwatchCommand.commandLine("--help");
            CommandLine whole = TailwatchCommand.commandLine();
            listing.setUsageHelpAutoWidth(false);
            whole.setUsageHelpAutoWidth(false);
            listing.setUsageHelpWidth(width);
            whole.setUsageHelpWidth(width);
            assertThat(run(listing, "--help")).as("width " + width).isEqualTo(run(whole, "--help"));
        }
    }

    @Test
    void helpAMisspeltCommandOrARootUsageErrorGetTheWholeCommandLine() {
        int all = TailwatchCommand.commandLine().getSubcommands().size();
        for (String[] args : new String[][] {{"help"}, {"help", "status"}, {"stauts"}, {"--no-such-option"}, {"--help", "status"}}) {
            CommandLine cl = TailwatchCommand.commandLine(args);
            assertThat(cl.getSubcommands()).as(String.join(" ", args)).hasSize(all);
            assertThat(cl.getSubcommands().get("status").getCommandSpec().userObject()).isInstanceOf(StatusCommand.class);
        }
        Run rootError = run(TailwatchCommand.commandLine("--no-such-option"), "--no-such-option");
        assertThat(rootError.exit()).isEqualTo(TailwatchCommand.EXIT_CONFIG);
        assertThat(rootError.err()).contains("Unknown option").contains("Usage: tailwatch").contains("kv-budget");
        Run helpStatus = run(TailwatchCommand.commandLine("help", "status"), "help", "status");
        assertThat(helpStatus.out()).startsWith("Usage: tailwatch status").contains("--url");
        Run misspelt = run(TailwatchCommand.commandLine("stauts"), "stauts");
        assertThat(misspelt.exit()).isEqualTo(TailwatchCommand.EXIT_CONFIG);
        assertThat(misspelt.err()).contains("diagnose").contains("kv-budget");
    }
}
