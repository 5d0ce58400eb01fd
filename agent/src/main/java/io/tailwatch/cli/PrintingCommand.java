package io.tailwatch.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that prints only through picocli's writers: {@link #run} is handed them, so every command
 * prints the same way and a caller (a test, an embedding program) captures or redirects both streams
 * with {@code CommandLine.setOut/setErr}.
 */
abstract class PrintingCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /**
     * Runs with writers that pass the terminal rule (core/logging/SafeText), whatever writers the command line
     * holds: a command built apart from the root (Main builds only the command it runs) must escape engine text
     * too. The rule is idempotent, so a writer that already escapes is unharmed.
     */
    @Override
    public final Integer call() {
        PrintWriter out = safe(spec.commandLine().getOut());
        PrintWriter err = safe(spec.commandLine().getErr());
        try {
            return run(out, err);
        } finally {
            out.flush();
            err.flush();
        }
    }

    private static PrintWriter safe(PrintWriter w) {
        return new PrintWriter(new io.tailwatch.core.text.SafeText.TerminalWriter(w), true);
    }

    /** Runs the command and returns its exit code ({@link TailwatchCommand}'s EXIT_ constants). */
    protected abstract int run(PrintWriter out, PrintWriter err);
}
