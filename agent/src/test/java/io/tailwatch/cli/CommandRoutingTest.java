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
    void noArgumentsHelpOrAMisspeltCommandGetTheWholeCommandLine() {
        int all = TailwatchCommand.commandLine().getSubcommands().size();
        for (String[] args : new String[][] {{}, {"--help"}, {"help", "status"}, {"stauts"}, {"-V"}}) {
            assertThat(TailwatchCommand.commandLine(args).getSubcommands()).as(String.join(" ", args)).hasSize(all);
        }
        Run misspelt = run(TailwatchCommand.commandLine("stauts"), "stauts");
        assertThat(misspelt.exit()).isEqualTo(TailwatchCommand.EXIT_CONFIG);
        assertThat(misspelt.err()).contains("diagnose").contains("kv-budget");
    }
}
