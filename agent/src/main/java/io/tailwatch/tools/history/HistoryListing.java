package io.tailwatch.tools.history;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.text.Columns;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/** How tailwatch history shows stored runs: a table for people, JSON (with each run's summary) for tools. */
public final class HistoryListing {
    /** Column widths in terminal columns (a wide character counts two): id, kind, start, host, engine, model, headline. */
    private static final int[] WIDTHS = {6, 8, 20, 16, 14, 28, 12};

    private HistoryListing() {
    }

    /** A header line and one line per run: id, kind, start (UTC, to the second), host, engine, model, headline, outcome. */
    public static String table(List<RunRecord> rows) {
        StringBuilder sb = new StringBuilder();
        row(sb, "id", "kind", "started (UTC)", "host", "engine", "model", "headline", "outcome");
        for (RunRecord r : rows) {
            String headline = r.headline() == null ? "n/a"
                    : String.format(Locale.ROOT, "%.2f %s", r.headline(), r.unit() == null ? "" : r.unit());
            row(sb, String.valueOf(r.id()), r.kind(),
                    r.startedAt().toString().replace('T', ' ').replaceFirst("\\.\\d+Z$", "Z"), r.host(), r.engine(),
                    r.model(), headline, r.outcome() == null ? "" : r.outcome());
        }
        return sb.toString();
    }

    /** One line: the cells padded to {@link #WIDTHS} (the headline right-aligned), the outcome last. */
    private static void row(StringBuilder sb, String... cells) {
        for (int i = 0; i < WIDTHS.length; i++) {
            String c = String.valueOf(cells[i]);
            sb.append(i == 6 ? Columns.padLeft(c, WIDTHS[i]) : Columns.padRight(c, WIDTHS[i])).append(i == 6 ? "  " : " ");
        }
        sb.append(cells[7]).append('\n');
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
