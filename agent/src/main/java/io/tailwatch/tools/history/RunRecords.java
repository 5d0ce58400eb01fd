package io.tailwatch.tools.history;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.stats.Stats;
import io.tailwatch.tools.capacity.Bench;
import io.tailwatch.tools.capacity.BenchReport;
import io.tailwatch.tools.capacity.LadderResult;
import io.tailwatch.tools.capacity.LevelResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The history records of a capacity run (docs/capacity.md, "Local history"), and what the bench reads
 * back from the history: the regression check against the last 7 days.
 */
public final class RunRecords {
    public static final String LADDER = "ladder";
    public static final String BENCH = "bench";
    public static final String BASELINE = "baseline";
    /** The kinds of run the history keeps. */
    public static final List<String> KINDS = List.of(LADDER, BENCH, BASELINE);
    /** How far back the bench's regression check looks. */
    public static final Duration REGRESSION_WINDOW = Duration.ofDays(7);

    private RunRecords() {
    }

    /**
     * A finished ladder: one {@code ladder} record (headline: the first step's p95 in s; outcome: the stop
     * rule and level, or "no stop"; the run's summary JSON), and, when its concurrency-1 step ran clean
     * ({@link LadderResult#baselineStep()}), one {@code baseline} record of that step (headline: its
     * average in s; average, p50, p95, p99, TTFT p95 and decode tok/s as summary).
     *
     * @param model       null when the engine's default model was used (stored as "")
     * @param summaryJson the ladder's summary.json
     */
    public static List<RunRecord> ladder(String host, String engine, String model, LadderResult r, String summaryJson) {
        List<RunRecord> out = new ArrayList<>();
        String m = model == null ? "" : model;
        LevelResult first = r.first();
        Double firstP95 = first == null || Double.isNaN(first.e2e().p95()) ? null : first.e2e().p95();
        String outcome = r.stop() == null ? "no stop" : r.stop().rule() + " at " + r.stop().level();
        out.add(new RunRecord(0, LADDER, r.start(), r.end(), host, engine, m, firstP95, "s", outcome, summaryJson));
        LevelResult l = r.baselineStep();
        if (l != null) {
            Map<String, Object> b = new LinkedHashMap<>();
            b.put("requests", l.requests());
            b.put("avg_seconds", l.e2e().mean());
            b.put("p50_seconds", l.e2e().p50());
            b.put("p95_seconds", l.e2e().p95());
            b.put("p99_seconds", l.e2e().p99());
            b.put("ttft_p95_seconds", nanToNull(l.ttft().p95()));
            b.put("decode_tokens_per_second", nanToNull(l.decodeTokensPerSecond().p50()));
            out.add(new RunRecord(0, BASELINE, l.start(), l.end(), host, engine, m, l.e2e().mean(), "s",
                    "from ladder", Json.write(b)));
        }
        return out;
    }

    /**
     * A finished bench: one {@code bench} record per engine that was not refused and had a valid run
     * (headline: median decode tok/s; outcome: the stability class; summary: that engine's entry of the
     * report's {@code engines} array, {@code engineDocs[i]} for {@code results[i]}).
     */
    public static List<RunRecord> bench(String host, List<Bench.EngineResult> results, JsonNode engineDocs) {
        List<RunRecord> records = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Bench.EngineResult r = results.get(i);
            if (!r.refused().isEmpty() || r.valid() == 0) {
                continue;
            }
            records.add(new RunRecord(0, BENCH, r.start(), r.end(), host, r.target().engine(),
                    r.target().reportedModel() == null ? "" : r.target().reportedModel(), r.medianTps(), "tok/s",
                    r.stability().label(), Json.write(engineDocs.get(i))));
        }
        return records;
    }

    /**
     * Per result, the regression check: the median of the same engine, model and host's bench medians
     * since {@code now} minus {@link #REGRESSION_WINDOW} is the reference; a drop of 10 % or more is
     * flagged ({@link BenchReport.Regression#judge}).
     */
    public static List<BenchReport.Regression> benchRegressions(History h, String host, List<Bench.EngineResult> results,
                                                              Instant now) throws HistoryException {
        List<BenchReport.Regression> out = new ArrayList<>();
        Instant since = now.minus(REGRESSION_WINDOW);
        for (Bench.EngineResult r : results) {
            List<Double> past = h.headlinesSince(BENCH, r.target().engine(),
                    r.target().reportedModel() == null ? "" : r.target().reportedModel(), host, since);
            double ref = Stats.median(Stats.toArray(past));
            out.add(BenchReport.Regression.judge(r.medianTps(), ref, past.size()));
        }
        return out;
    }

    private static Double nanToNull(double v) {
        return Double.isNaN(v) ? null : v;
    }
}
