package io.tailwatch.cli;

import io.tailwatch.metrics.MetricsReference;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Prints the metric reference (the text of docs/metrics.md). */
@Command(name = "metrics", description = "Print the metric reference (same text as docs/metrics.md).")
public final class MetricsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        out.print(MetricsReference.markdown());
        return TailwatchCommand.EXIT_OK;
    }
}
