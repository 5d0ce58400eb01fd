package io.tailwatch.tools.history;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/** How tailwatch history shows stored runs: a table for people, JSON (with each run's summary) for tools. */
public final class HistoryListing {
    private static final String HEADER = "%-6s %-8s %-20s %-16s %-14s %-28s %12s  %s%n";
    private static final String ROW = "%-6d %-8s %-20s %-16s %-14s %-28s %12s  %s%n";

    private HistoryListing() {
    }

    /** A header line and one line per run: id, kind, start (UTC, to the second), host, engine, model, headline, outcome. */
    public static String table(List<RunRecord> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, HEADER, "id", "kind", "started (UTC)", "host", "engine", "model", "headline",
                "outcome"));
        for (RunRecord r : rows) {
            String headline = r.headline() == null ? "n/a"
                    : String.format(Locale.ROOT, "%.2f %s", r.headline(), r.unit() == null ? "" : r.unit());
            sb.append(String.format(Locale.ROOT, ROW, r.id(), r.kind(),
                    r.startedAt().toString().replace('T', ' ').replaceFirst("\\.\\d+Z$", "Z"), r.host(), r.engine(),
                    r.model(), headline, r.outcome() == null ? "" : r.outcome()));
        }
        return sb.toString();
    }

    /** A JSON array of the runs; a stored summary that is not JSON is kept as a string. */
    public static String json(List<RunRecord> rows) {
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
            } catch (IOException e) {
                o.put("summary", r.summary());
            }
        }
        return Json.write(arr);
    }
}
