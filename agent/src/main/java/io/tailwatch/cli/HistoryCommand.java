package io.tailwatch.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.tools.history.History;
import io.tailwatch.tools.history.HistoryException;
import io.tailwatch.tools.history.RunRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** tailwatch history: past ladder, bench and baseline results from the local database. */
@Command(name = "history", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = "List past ladder, bench and baseline results from the local history (newest first).")
public final class HistoryCommand implements Callable<Integer> {
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
    public Integer call() {
        if (kind != null && !List.of("ladder", "bench", "baseline").contains(kind)) {
            System.err.println("--kind must be ladder, bench or baseline");
            return TailwatchCommand.EXIT_CONFIG;
        }
        if (limit < 1 || limit > 100_000) {
            System.err.println("--limit must be in 1..100000");
            return TailwatchCommand.EXIT_CONFIG;
        }
        Path file = CapacitySupport.historyPath(historyDb);
        if (!Files.exists(file)) {
            if (json) {
                System.out.println("[]");
            } else {
                System.out.println("no history yet (" + file + ")");
            }
            return TailwatchCommand.EXIT_OK;
        }
        List<RunRecord> rows;
        try (History h = History.open(file)) {
            rows = h.list(engine, model, kind, limit);
        } catch (HistoryException e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
        if (json) {
            ArrayNode arr = Json.MAPPER.createArrayNode();
            for (RunRecord r : rows) {
                ObjectNode o = arr.addObject();
                o.put("id", r.id());
                o.put("kind", r.kind());
                o.put("started_at", r.startedAt().toString());
                o.put("ended_at", r.endedAt() == null ? null : r.endedAt().toString());
                o.put("host", r.host());
                o.put("engine", r.engine());
                o.put("model", r.model());
                if (r.headline() == null) {
                    o.putNull("headline");
                } else {
                    o.put("headline", r.headline());
                }
                o.put("unit", r.unit());
                o.put("outcome", r.outcome());
                try {
                    o.set("summary", Json.MAPPER.readTree(r.summary()));
                } catch (java.io.IOException e) {
                    o.put("summary", r.summary());
                }
            }
            System.out.println(Json.write(arr));
            return TailwatchCommand.EXIT_OK;
        }
        if (rows.isEmpty()) {
            System.out.println("no matching runs in " + file);
            return TailwatchCommand.EXIT_OK;
        }
        System.out.printf(Locale.ROOT, "%-6s %-8s %-20s %-16s %-14s %-28s %12s  %s%n", "id", "kind", "started (UTC)", "host",
                "engine", "model", "headline", "outcome");
        for (RunRecord r : rows) {
            String headline = r.headline() == null ? "n/a"
                    : String.format(Locale.ROOT, "%.2f %s", r.headline(), r.unit() == null ? "" : r.unit());
            System.out.printf(Locale.ROOT, "%-6d %-8s %-20s %-16s %-14s %-28s %12s  %s%n", r.id(), r.kind(),
                    r.startedAt().toString().replace('T', ' ').replaceFirst("\\.\\d+Z$", "Z"), r.host(), r.engine(),
                    r.model(), headline, r.outcome() == null ? "" : r.outcome());
        }
        return TailwatchCommand.EXIT_OK;
    }
}
