package io.tailwatch.cli;

import io.tailwatch.metrics.MetricsReference;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

/** Prints the metric reference (the text of docs/metrics.md). */
@Command(name = "metrics", description = "Print the metric reference (same text as docs/metrics.md).")
public final class MetricsCommand extends PrintingCommand {

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        out.print(MetricsReference.markdown());
        return TailwatchCommand.EXIT_OK;
    }
}
