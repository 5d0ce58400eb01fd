package io.tailwatch.cli;

import io.tailwatch.metrics.MetricsReference;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Prints the metric reference (the text of docs/metrics.md). */
@Command(name = "metrics", description = "Print the metric reference (same text as docs/metrics.md).")
public final class MetricsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.print(MetricsReference.markdown());
        return TailwatchCommand.EXIT_OK;
    }
}
