package io.tailwatch.cli;

import io.tailwatch.tools.history.History;
import io.tailwatch.tools.history.HistoryException;
import io.tailwatch.tools.history.HistoryListing;
import io.tailwatch.tools.history.RunRecord;
import io.tailwatch.tools.history.RunRecords;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** tailwatch history: past ladder, bench and baseline results from the local database. */
@Command(name = "history", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = "List past ladder, bench and baseline results from the local history (newest first).")
public final class HistoryCommand extends PrintingCommand {

    @Option(names = "--engine", paramLabel = "E", description = "Only this engine.")
    String engine;

    @Option(names = "--model", paramLabel = "M", description = "Only this model.")
    String model;

    @Option(names = "--kind", paramLabel = "KIND", description = "Only ladder, bench or baseline.")
    String kind;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "50", description = "At most N rows (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print JSON (with each run's stored summary).")
    boolean json;

    @Option(names = "--history-db", paramLabel = "FILE", description = "History database (default: the user data directory).")
    Path historyDb;

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        if (kind != null && !RunRecords.KINDS.contains(kind)) {
            err.println("--kind must be " + String.join(", ", RunRecords.KINDS.subList(0, RunRecords.KINDS.size() - 1))
                    + " or " + RunRecords.KINDS.get(RunRecords.KINDS.size() - 1));
            return TailwatchCommand.EXIT_CONFIG;
        }
        if (limit < 1 || limit > 100_000) {
            err.println("--limit must be in 1..100000");
            return TailwatchCommand.EXIT_CONFIG;
        }
        Path file = CapacitySupport.historyPath(historyDb);
        if (!Files.exists(file)) {
            out.println(json ? "[]" : "no history yet (" + file + ")");
            return TailwatchCommand.EXIT_OK;
        }
        List<RunRecord> rows;
        try (History h = History.open(file)) {
            rows = h.list(engine, model, kind, limit);
        } catch (HistoryException e) {
            err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
        if (json) {
            out.println(HistoryListing.json(rows));
        } else if (rows.isEmpty()) {
            out.println("no matching runs in " + file);
        } else {
            out.print(HistoryListing.table(rows));
        }
        return TailwatchCommand.EXIT_OK;
    }
}
