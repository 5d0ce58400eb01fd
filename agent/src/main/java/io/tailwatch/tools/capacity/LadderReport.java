package io.tailwatch.tools.capacity;

import static io.tailwatch.tools.capacity.ReportFiles.csv;
import static io.tailwatch.tools.capacity.ReportFiles.fmt;
import static io.tailwatch.tools.capacity.ReportFiles.num;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.stats.Stats;
import io.tailwatch.core.units.Units;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The ladder's output directory: requests.csv (one row per request), summary.json (machine
 * readable), report.md (the gate report a person signs) and ladder.png. Each file is replaced
 * atomically, so the directory always holds a consistent, readable report, also after an interrupt.
 */
public final class LadderReport {
    public static final String REQUESTS = "requests.csv";
    public static final String SUMMARY = "summary.json";
    public static final String REPORT = "report.md";
    public static final String CHART = "ladder.png";

    private LadderReport() {
    }

    /** The gate verdict for a run, from the average latency of its concurrency-1 step; null when there is none. */
    public static Gate.Verdict gate(Gate gate, LadderResult r) {
        if (gate == null) {
            return null;
        }
        for (LevelResult l : r.levels()) {
            if (l.concurrency() == 1 && !Double.isNaN(l.e2e().mean())) {
                return gate.evaluate(l.e2e().mean());
            }
        }
        return null;
    }

    /** The summary.json written to {@code dir}, or "{}" when it cannot be read. */
    public static String readSummary(Path dir) {
        try {
            return java.nio.file.Files.readString(dir.resolve(SUMMARY));
        } catch (IOException e) {
            return "{}";
        }
    }

    /** Writes all four files; the chart last (it is the one that needs AWT). */
    public static void write(Path dir, LadderResult r, RunMetadata meta, Gate gate) throws IOException {
        Gate.Verdict verdict = gate(gate, r);
        ReportFiles.writeAtomically(dir.resolve(REQUESTS), requestsCsv(r, meta));
        ReportFiles.writeAtomically(dir.resolve(SUMMARY), Json.write(summary(r, meta, gate, verdict)) + "\n");
        ReportFiles.writeAtomically(dir.resolve(REPORT), markdown(r, meta, gate, verdict));
        LadderChart.write(dir.resolve(CHART), r, meta);
    }

    static String requestsCsv(LadderResult r) {
        return requestsCsv(r, null);
    }

    /**
     * One row per request; the last column, engine_parallelism, is the number of requests the engine
     * generates at once as it reported it (empty when it does not say), the same on every row.
     */
    static String requestsCsv(LadderResult r, RunMetadata meta) {
        StringBuilder sb = new StringBuilder();
        sb.append("phase,concurrency,seq,started_at,success,error_type,e2e_seconds,ttft_seconds,time_to_headers_seconds,")
                .append("output_tokens,input_tokens,token_source,decode_tokens_per_second,")
                .append("server_decode_tokens_per_second,server_prompt_seconds,cached_tokens,model,error_message,")
                .append("engine_parallelism\n");
        Integer parallelism = meta == null ? null : meta.engineParallelism();
        // a request that named no model (mlx_lm) is served by the run's model (empty when that is not known)
        String served = meta == null ? null : meta.model();
        if (r.warmup() != null) {
            row(sb, "warmup", 1, 1, r.warmup(), parallelism, served);
        }
        for (LevelResult l : r.levels()) {
            int seq = 0;
            for (ProbeResult p : l.results()) {
                row(sb, "measure", l.concurrency(), ++seq, p, parallelism, served);
            }
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String phase, int c, int seq, ProbeResult p, Integer parallelism,
                            String served) {
        String model = io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL.equals(p.model()) ? served : p.model();
        Object[] cells = {phase, c, seq, p.startedAt(), p.success(), p.errorType(), p.e2eSeconds(), p.ttftSeconds(),
                p.timeToHeadersSeconds(), p.outputTokens(), p.inputTokens(), p.tokenSource(), p.decodeTokensPerSecond(),
                p.serverDecodeTokensPerSecond(), p.serverPromptSeconds(), p.cachedTokens(), model, p.errorMessage(),
                parallelism};
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(csv(cells[i]));
        }
        sb.append('\n');
    }

    static ObjectNode summary(LadderResult r, RunMetadata meta, Gate gate, Gate.Verdict verdict) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("complete", r.finished() && !r.interrupted());
        root.put("interrupted", r.interrupted());
        ArrayNode levels = root.putArray("levels");
        for (LevelResult l : r.levels()) {
            levels.add(level(l));
        }
        root.set("stopped", r.stop() == null ? Json.MAPPER.nullNode() : stop(r.stop()));
        ArrayNode tripped = root.putArray("rules_tripped");
        r.tripped().forEach(s -> tripped.add(stop(s)));
        if (r.warmup() != null) {
            ObjectNode w = root.putObject("warmup");
            w.put("success", r.warmup().success());
            num(w, "e2e_seconds", r.warmup().e2eSeconds());
            num(w, "ttft_seconds", r.warmup().ttftSeconds());
            if (r.warmup().errorType() != null) {
                w.put("error_type", r.warmup().errorType());
            }
        }
        if (gate != null) {
            ObjectNode g = root.putObject("gate");
            g.put("daily", gate.daily());
            num(g, "budget_seconds", gate.budget().toNanos() / 1e9);
            if (verdict == null) {
                g.putNull("pass");
                g.put("detail", "no successful concurrency-1 step to judge from");
            } else {
                num(g, "average_seconds", verdict.averageSeconds());
                num(g, "needed_seconds", verdict.neededSeconds());
                g.put("pass", verdict.pass());
                num(g, "headroom", verdict.headroom());
            }
        }
        ObjectNode rules = root.putObject("rules");
        num(rules, "p95_ratio", r.options().rules().p95Ratio());
        num(rules, "max_error_rate", r.options().rules().maxErrorRate());
        num(rules, "swap_growth_bytes", r.options().rules().swapGrowthBytes());
        root.set("metadata", ReportFiles.tree(meta.asMap()));
        return root;
    }

    private static ObjectNode level(LevelResult l) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        Stats.Summary e2e = l.e2e();
        Stats.Summary ttft = l.ttft();
        Stats.Summary decode = l.decodeTokensPerSecond();
        o.put("concurrency", l.concurrency());
        o.put("requests", l.requests());
        o.put("planned", l.planned());
        o.put("complete", l.complete());
        o.put("errors", l.errors());
        num(o, "error_rate", l.errorRate());
        num(o, "min_seconds", e2e.min());
        num(o, "avg_seconds", e2e.mean());
        num(o, "p50_seconds", e2e.p50());
        num(o, "p95_seconds", e2e.p95());
        num(o, "p99_seconds", e2e.p99());
        num(o, "max_seconds", e2e.max());
        num(o, "ttft_min_seconds", ttft.min());
        num(o, "ttft_avg_seconds", ttft.mean());
        num(o, "ttft_p50_seconds", ttft.p50());
        num(o, "ttft_p95_seconds", ttft.p95());
        num(o, "ttft_p99_seconds", ttft.p99());
        num(o, "ttft_max_seconds", ttft.max());
        num(o, "decode_tokens_per_second_avg", decode.mean());
        num(o, "decode_tokens_per_second_p50", decode.p50());
        num(o, "decode_tokens_per_second_min", decode.min());
        num(o, "output_tokens_per_second", l.outputTokensPerSecond());
        if (l.results().stream().anyMatch(p -> p.success() && p.outputTokens() != null)) {
            o.put("output_tokens", l.outputTokens());
        } else {
            o.putNull("output_tokens");
        }
        num(o, "duration_seconds", l.start() == null || l.end() == null ? null
                : java.time.Duration.between(l.start(), l.end()).toNanos() / 1e9);
        o.set("host_before", host(l.before()));
        o.set("host_after", host(l.after()));
        num(o, "swap_growth_bytes", l.swapGrowthBytes());
        if (l.healthProblem() != null) {
            o.put("health", l.healthProblem());
        }
        return o;
    }

    private static ObjectNode host(HostFigures h) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        if (h == null) {
            return o;
        }
        num(o, "swap_used_bytes", h.swapUsedBytes());
        num(o, "memory_available_bytes", h.memoryAvailableBytes());
        o.put("memory_pressure", HostFigures.pressureName(h.pressureLevel()));
        o.put("thermal", HostFigures.thermalName(h.thermalLevel()));
        num(o, "engine_footprint_bytes", h.footprintBytes());
        num(o, "power_watts", h.powerWatts());
        return o;
    }

    private static ObjectNode stop(StopRules.Stop s) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("level", s.level());
        o.put("rule", s.rule());
        num(o, "value", s.value());
        num(o, "threshold", s.threshold());
        o.put("detail", s.detail());
        return o;
    }

    static String markdown(LadderResult r, RunMetadata m, Gate gate, Gate.Verdict verdict) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Concurrency ladder gate report\n\n");
        if (r.interrupted()) {
            sb.append("**PARTIAL REPORT: the run was interrupted.** Figures cover only what completed.\n\n");
        } else if (!r.finished()) {
            sb.append("**PARTIAL REPORT: the run is still in progress.**\n\n");
        }
        sb.append("## Result\n\n");
        if (r.stop() == null) {
            sb.append("Every step ran; no stop rule tripped.\n\n");
        } else {
            StopRules.Stop s = r.stop();
            sb.append("Stopped at concurrency **").append(s.level()).append("** by rule **").append(s.rule())
                    .append("**: value ").append(fmt(s.value(), 2)).append(", threshold ").append(fmt(s.threshold(), 2))
                    .append(". ").append(s.detail()).append(".\n\n");
            if (r.tripped().size() > 1) {
                sb.append("Also tripped (run continued with --continue):\n\n");
                for (StopRules.Stop t : r.tripped().subList(1, r.tripped().size())) {
                    sb.append("- concurrency ").append(t.level()).append(": ").append(t.rule()).append(" (")
                            .append(t.detail()).append(")\n");
                }
                sb.append('\n');
            }
        }
        sb.append("Engine parallelism: ").append(m.engineParallelism() == null ? "not reported by the engine"
                : m.engineParallelism() + (m.engineParallelism() == 1 ? " request" : " requests") + " at once ("
                + m.engineParallelismSource() + ")").append(".\n\n");
        if (gate != null) {
            sb.append("Gate (").append(gate.daily()).append(" jobs a day within ").append(Units.format(gate.budget()))
                    .append(" at concurrency 1): ");
            sb.append(verdict == null ? "not judged (no successful concurrency-1 step)." : verdict.sentence() + ".");
            sb.append("\n\n");
        }
        sb.append("## Steps\n\n");
        sb.append("| concurrency | requests | errors | error rate | e2e min | avg | p50 | p95 | p99 | max | TTFT p50 | TTFT p95 | decode tok/s (avg) | output tok/s (all) |\n");
        sb.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (LevelResult l : r.levels()) {
            Stats.Summary e = l.e2e();
            Stats.Summary t = l.ttft();
            sb.append("| ").append(l.concurrency()).append(" | ").append(l.requests())
                    .append(l.complete() ? "" : " of " + l.planned()).append(" | ").append(l.errors()).append(" | ")
                    .append(fmt(l.errorRate() * 100, 1)).append(" % | ").append(fmt(e.min(), 2)).append(" s | ")
                    .append(fmt(e.mean(), 2)).append(" s | ").append(fmt(e.p50(), 2)).append(" s | ")
                    .append(fmt(e.p95(), 2)).append(" s | ").append(fmt(e.p99(), 2)).append(" s | ")
                    .append(fmt(e.max(), 2)).append(" s | ").append(fmt(t.p50(), 3)).append(" s | ")
                    .append(fmt(t.p95(), 3)).append(" s | ").append(fmt(l.decodeTokensPerSecond().mean(), 1)).append(" | ")
                    .append(fmt(l.outputTokensPerSecond(), 1)).append(" |\n");
        }
        sb.append("\nLatency figures cover successful requests; errors are counted separately.\n\n");
        sb.append("## Host during the steps\n\n");
        sb.append("| concurrency | swap before | swap after | pressure before | pressure after | thermal before | thermal after | engine footprint before | after |\n");
        sb.append("|---:|---:|---:|---|---|---|---|---:|---:|\n");
        for (LevelResult l : r.levels()) {
            HostFigures b = l.before() == null ? HostFigures.UNKNOWN : l.before();
            HostFigures a = l.after() == null ? HostFigures.UNKNOWN : l.after();
            sb.append("| ").append(l.concurrency()).append(" | ").append(bytes(b.swapUsedBytes())).append(" | ")
                    .append(bytes(a.swapUsedBytes())).append(" | ").append(HostFigures.pressureName(b.pressureLevel()))
                    .append(" | ").append(HostFigures.pressureName(a.pressureLevel())).append(" | ")
                    .append(HostFigures.thermalName(b.thermalLevel())).append(" | ")
                    .append(HostFigures.thermalName(a.thermalLevel())).append(" | ").append(bytes(b.footprintBytes()))
                    .append(" | ").append(bytes(a.footprintBytes())).append(" |\n");
        }
        sb.append("\n## Run\n\n");
        sb.append("| field | value |\n|---|---|\n");
        for (Map.Entry<String, Object> e : m.asMap().entrySet()) {
            Object v = e.getValue();
            String text;
            if (v == null) {
                text = "unknown";
            } else if (e.getKey().equals("memory_bytes")) {
                text = Units.formatBytes(((Number) v).doubleValue());
            } else {
                text = String.valueOf(v);
            }
            sb.append("| ").append(e.getKey()).append(" | ").append(text.replace("|", "\\|")).append(" |\n");
        }
        sb.append("| stop rules | error rate > ").append(fmt(r.options().rules().maxErrorRate(), 2))
                .append("; p95 >= ").append(fmt(r.options().rules().p95Ratio(), 1))
                .append("x first step; health failing; swap growth > ")
                .append(Units.formatBytes(r.options().rules().swapGrowthBytes()))
                .append("; memory pressure critical |\n");
        if (r.warmup() != null) {
            sb.append("| warm-up | ").append(r.warmup().success() ? "ok" : "failed: " + r.warmup().errorType())
                    .append(", ").append(fmt(r.warmup().e2eSeconds(), 2)).append(" s |\n");
        }
        sb.append("\nFiles: `").append(REQUESTS).append("` (one row per request), `").append(SUMMARY).append("`, `")
                .append(CHART).append("`.\n\n");
        sb.append("## Sign-off\n\nReviewed by: ______________________  Date: ____________\n");
        return sb.toString();
    }

    private static String bytes(Double b) {
        return b == null ? "unknown" : Units.formatBytes(b);
    }
}
