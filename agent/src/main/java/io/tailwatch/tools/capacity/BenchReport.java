package io.tailwatch.tools.capacity;

import static io.tailwatch.tools.capacity.ReportFiles.fmt;
import static io.tailwatch.tools.capacity.ReportFiles.num;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** Bench output: JSON, a terminal table and a Markdown report, all with the run metadata. */
public final class BenchReport {
    /** A drop of this much below the reference median counts as a regression. */
    public static final double REGRESSION_DROP = 0.10;
    /** First line of an interrupted run's report. */
    public static final String PARTIAL = "PARTIAL REPORT: interrupted; the figures cover the runs finished before the interruption.";

    private BenchReport() {
    }

    /**
     * Comparison with the same engine/model/host's bench medians of the last 7 days.
     *
     * @param reference median of those medians, NaN when there were none
     * @param change    (current - reference) / reference, NaN without a reference
     */
    public record Regression(double reference, int pastRuns, double change, boolean regressed) {
        public static Regression judge(double current, double reference, int pastRuns) {
            if (Double.isNaN(reference) || reference <= 0 || Double.isNaN(current)) {
                return new Regression(Double.NaN, pastRuns, Double.NaN, false);
            }
            double change = (current - reference) / reference;
            return new Regression(reference, pastRuns, change, change <= -REGRESSION_DROP);
        }
    }

    public static ObjectNode json(List<Bench.EngineResult> results, List<RunMetadata> metas, List<Regression> regressions) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ArrayNode engines = root.putArray("engines");
        for (int i = 0; i < results.size(); i++) {
            Bench.EngineResult r = results.get(i);
            ObjectNode e = engines.addObject();
            e.put("engine", r.target().engine());
            e.put("api", r.target().api());
            e.put("model", r.target().reportedModel());
            if (!r.refused().isEmpty()) {
                ArrayNode ref = e.putArray("refused");
                r.refused().forEach(ref::add);
            }
            e.put("runs", r.runs().size());
            e.put("valid_runs", r.valid());
            num(e, "median_tokens_per_second", r.medianTps());
            num(e, "mean_tokens_per_second", r.meanTps());
            num(e, "stddev_tokens_per_second", r.stddevTps());
            num(e, "cv", r.cv());
            e.put("stability", r.stability().label());
            e.put("thermal_drift", !Double.isNaN(r.drift()));
            num(e, "thermal_drift_drop", r.drift());
            num(e, "median_ttft_seconds", r.medianTtft());
            num(e, "median_power_watts", r.medianWatts());
            num(e, "tokens_per_second_per_watt", r.tpsPerWatt());
            if (r.warmup() != null) {
                ObjectNode w = e.putObject("warmup");
                w.put("success", r.warmup().success());
                num(w, "e2e_seconds", r.warmup().e2eSeconds());
            }
            ArrayNode runs = e.putArray("run_results");
            for (Bench.Run run : r.runs()) {
                ObjectNode o = runs.addObject();
                o.put("run", run.index());
                o.put("success", run.result().success());
                o.put("discarded", run.discarded());
                if (run.result().errorType() != null) {
                    o.put("error_type", run.result().errorType());
                }
                num(o, "decode_tokens_per_second", Bench.decodeRate(run.result()));
                o.put("decode_source", Bench.decodeRateSource(run.result()));
                num(o, "client_decode_tokens_per_second", run.result().decodeTokensPerSecond());
                num(o, "server_decode_tokens_per_second", run.result().serverDecodeTokensPerSecond());
                num(o, "ttft_seconds", run.result().ttftSeconds());
                num(o, "e2e_seconds", run.result().e2eSeconds());
                o.put("output_tokens", run.result().outputTokens());
                o.put("token_source", run.result().tokenSource());
                num(o, "power_watts", run.after() == null ? null : run.after().powerWatts());
                o.put("thermal", HostFigures.thermalName(run.after() == null ? null : run.after().thermalLevel()));
            }
            ArrayNode warnings = e.putArray("warnings");
            r.warnings().forEach(warnings::add);
            if (r.coolDown() != null) {
                e.put("cool_down", r.coolDown());
            }
            if (regressions != null) {
                Regression g = regressions.get(i);
                ObjectNode o = e.putObject("history");
                num(o, "reference_median_tokens_per_second", g.reference());
                o.put("past_runs", g.pastRuns());
                num(o, "change", g.change());
                o.put("regression", g.regressed());
            }
            e.set("metadata", ReportFiles.tree(metas.get(i).asMap()));
        }
        return root;
    }

    public static String text(List<Bench.EngineResult> results, List<Regression> regressions) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < results.size(); i++) {
            Bench.EngineResult r = results.get(i);
            if (i > 0) {
                sb.append('\n');
            }
            // The cool-down happened before this engine: say so between the two engines, not under either.
            if (r.coolDown() != null) {
                sb.append("cool-down before ").append(r.target().engine()).append(": ").append(r.coolDown()).append("\n\n");
            }
            sb.append(r.target().engine()).append(r.target().reportedModel() == null ? "" : " / " + r.target().reportedModel()).append('\n');
            if (!r.refused().isEmpty()) {
                sb.append("  refused by the preflight gate: ").append(String.join("; ", r.refused())).append('\n');
                continue;
            }
            sb.append("  decode: ").append(decodeLine(r)).append('\n');
            if (!Double.isNaN(r.medianTtft())) {
                sb.append("  TTFT median ").append(fmt(r.medianTtft(), 3)).append(" s\n");
            }
            if (Double.isNaN(r.medianWatts())) {
                sb.append("  power: not measured (this host reports no power reading)\n");
            } else {
                sb.append(String.format(Locale.ROOT, "  power: median %s W, %s tok/s per W%n", fmt(r.medianWatts(), 1),
                        fmt(r.tpsPerWatt(), 2)));
            }
            if (regressions != null) {
                Regression g = regressions.get(i);
                if (Double.isNaN(g.reference())) {
                    sb.append("  history: no bench of this engine and model in the last 7 days to compare with\n");
                } else {
                    sb.append(String.format(Locale.ROOT, "  history: %s against the 7-day median %s tok/s (%s)%s%n",
                            signedPercent(g.change()), fmt(g.reference(), 1), plural(g.pastRuns(), "run"),
                            g.regressed() ? " REGRESSION" : ""));
                }
            }
            for (String w : r.warnings()) {
                sb.append("  warning: ").append(w).append('\n');
            }
        }
        return sb.toString();
    }

    /** "35.2 tok/s, median of 3 runs (mean 35.1, stddev 0.41, CV 1.2 %: stable)", or what is missing. */
    static String decodeLine(Bench.EngineResult r) {
        int valid = r.valid();
        int all = r.runs().size();
        String discarded = valid < all ? String.format(Locale.ROOT, " (%d of %d discarded)", all - valid, all) : "";
        if (valid == 0) {
            return "no valid run" + (all == 0 ? "" : " of " + plural(all, "run"));
        }
        if (valid == 1) {
            return fmt(r.medianTps(), 1) + " tok/s from 1 run" + discarded
                    + "; one run has no spread (use --runs 3 or more for stability figures)";
        }
        return String.format(Locale.ROOT, "%s tok/s, median of %s%s (mean %s, stddev %s, CV %s %%: %s)",
                fmt(r.medianTps(), 1), plural(valid, "run"), discarded, fmt(r.meanTps(), 1), fmt(r.stddevTps(), 2),
                fmt(Math.abs(r.cv()) * 100, 1), r.stability().label());
    }

    /** "+2.1 %", "-4.0 %", and "0.0 %" for a change that rounds to zero (never "-0.0 %"). */
    static String signedPercent(double change) {
        String s = String.format(Locale.ROOT, "%+.1f %%", change * 100);
        return s.equals("+0.0 %") || s.equals("-0.0 %") ? "0.0 %" : s;
    }

    static String plural(long n, String word) {
        return n + " " + word + (n == 1 ? "" : "s");
    }

    public static String markdown(List<Bench.EngineResult> results, List<RunMetadata> metas, List<Regression> regressions) {
        StringBuilder sb = new StringBuilder("# Benchmark report\n\n");
        sb.append("| engine | model | median tok/s | mean | stddev | CV | stability | TTFT median | W | tok/s per W | drift | vs 7-day median |\n");
        sb.append("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|\n");
        for (int i = 0; i < results.size(); i++) {
            Bench.EngineResult r = results.get(i);
            Regression g = regressions == null ? null : regressions.get(i);
            sb.append("| ").append(r.target().engine()).append(" | ").append(r.target().reportedModel() == null ? "" : r.target().reportedModel())
                    .append(" | ").append(r.refused().isEmpty() ? fmt(r.medianTps(), 1) : "refused").append(" | ")
                    .append(fmt(r.meanTps(), 1)).append(" | ").append(fmt(r.stddevTps(), 2)).append(" | ")
                    .append(Double.isNaN(r.cv()) ? "n/a" : fmt(Math.abs(r.cv()) * 100, 1) + " %").append(" | ").append(r.stability().label()).append(" | ")
                    .append(Double.isNaN(r.medianTtft()) ? "n/a" : fmt(r.medianTtft(), 3) + " s").append(" | ").append(fmt(r.medianWatts(), 1)).append(" | ")
                    .append(fmt(r.tpsPerWatt(), 2)).append(" | ").append(Double.isNaN(r.drift()) ? "no" : "yes")
                    .append(" | ").append(g == null || Double.isNaN(g.change()) ? "n/a"
                            : signedPercent(g.change()) + (g.regressed() ? " REGRESSION" : ""))
                    .append(" |\n");
        }
        for (int i = 0; i < results.size(); i++) {
            Bench.EngineResult r = results.get(i);
            sb.append("\n## ").append(r.target().engine()).append("\n\n");
            for (String w : r.warnings()) {
                sb.append("- warning: ").append(w).append('\n');
            }
            if (!r.refused().isEmpty()) {
                sb.append("- refused: ").append(String.join("; ", r.refused())).append('\n');
            }
            sb.append("\n| field | value |\n|---|---|\n");
            metas.get(i).asMap().forEach((k, v) -> sb.append("| ").append(k).append(" | ")
                    .append(v == null ? "unknown" : String.valueOf(v).replace("|", "\\|")).append(" |\n"));
        }
        return sb.toString();
    }

    public static void write(Path dir, ObjectNode doc, String markdown) throws IOException {
        ReportFiles.writeAtomically(dir.resolve("bench.json"), Json.write(doc) + "\n");
        ReportFiles.writeAtomically(dir.resolve("bench.md"), markdown);
    }
}
