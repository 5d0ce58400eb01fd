package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command and subcommand answers --help and -h with exit 0, wrapped to the width, whole summaries listed. */
class CliHelpTest {
    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cl = TailwatchCommand.commandLine();
        cl.setUsageHelpAutoWidth(false);
        cl.setUsageHelpWidth(80);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static void paths(CommandLine c, List<String> prefix, List<List<String>> out) {
        for (var e : c.getSubcommands().entrySet()) {
            if (e.getValue().getCommandSpec().userObject() instanceof CommandLine.HelpCommand) {
                continue;
            }
            List<String> p = new ArrayList<>(prefix);
            p.add(e.getKey());
            out.add(p);
            paths(e.getValue(), p, out);
        }
    }

    @Test
    void everyCommandAndSubcommandAnswersHelpWithExitZero() {
        List<List<String>> all = new ArrayList<>();
        all.add(List.of());
        paths(TailwatchCommand.commandLine(), List.of(), all);
        assertThat(all).hasSizeGreaterThan(15);
        List<String> failures = new ArrayList<>();
        for (List<String> path : all) {
            for (String flag : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                Run r = run(args.toArray(String[]::new));
                String name = ("tailwatch " + String.join(" ", path)).strip();
                if (r.exit() != 0 || !r.out().startsWith("Usage: " + name) || !r.err().isEmpty()) {
                    failures.add(String.join(" ", args) + " -> exit " + r.exit() + " " + r.err());
                }
                for (String line : r.out().split("\n")) {
                    if (line.length() > 80) {
                        failures.add(String.join(" ", args) + ": line wider than 80: " + line);
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void theCommandListShowsWholeSummariesNotCutMidSentence() {
        Run r = run("--help");
        String list = r.out().substring(r.out().indexOf("Commands:"));
        assertThat(list.replaceAll("\\s+", " ")).contains("simulate Run a simulated LLM engine that speaks the Ollama or "
                + "OpenAI wire format, with set TTFT, decode speed, slots, errors, stalls and load time (fire drills, demos, tests).");
        Run doctor = run("doctor", "--help");
        assertThat(doctor.out().replaceAll("\\s+", " ")).contains("Cross-check every host signal against the OS's own tools. "
                + "Reads each signal natively");
    }
}
