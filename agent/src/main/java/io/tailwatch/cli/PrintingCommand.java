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

    @Override
    public final Integer call() {
        return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** Runs the command and returns its exit code ({@link TailwatchCommand}'s EXIT_ constants). */
    protected abstract int run(PrintWriter out, PrintWriter err);
}
