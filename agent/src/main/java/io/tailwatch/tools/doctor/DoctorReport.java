package io.tailwatch.tools.doctor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.host.SamplerResult;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.text.Columns;
import io.tailwatch.core.text.TextFit;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders the checks for a 100-column terminal (one block per check, detail wrapped onto indented
 * lines, nothing cut) or in full as JSON, and decides the exit status.
 */
public final class DoctorReport {
    /** The text report fits a terminal this wide; {@link #json()} has every field unabridged. */
    public static final int WIDTH = 100;
    /** Room for the widest verdict label, "ok (native only)", and two spaces. */
    private static final String INDENT = " ".repeat(18);

    private final String platform;
    private final List<Check> checks;
    private final Map<String, SamplerResult> samplers;
    private final Instant at;

    public DoctorReport(String platform, List<Check> checks, Map<String, SamplerResult> samplers) {
        this(platform, checks, samplers, Instant.now());
    }

    public DoctorReport(String platform, List<Check> checks, Map<String, SamplerResult> samplers, Instant at) {
        this.platform = platform;
        this.checks = List.copyOf(checks);
        this.samplers = Map.copyOf(samplers);
        this.at = at;
    }

    /** The same report with {@code first} ahead of its checks. */
    public DoctorReport withChecksFirst(List<Check> first) {
        List<Check> all = new ArrayList<>(first);
        all.addAll(checks);
        return new DoctorReport(platform, all, samplers, at);
    }

    public List<Check> checks() {
        return checks;
    }

    public boolean failed() {
        return checks.stream().anyMatch(c -> c.verdict().failed());
    }

    public String render() {
        StringBuilder b = new StringBuilder();
        b.append(TextFit.words("", "tailwatch doctor: host signals read natively beside the OS's own tools (" + platform + ")",
                "  ", WIDTH));
        b.append(TextFit.words("", "at " + DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z", Locale.ROOT)
                .format(at.atZone(ZoneId.systemDefault())), "  ", WIDTH));
        b.append('\n');
        for (Check c : checks) {
            b.append(TextFit.pieces(Columns.padRight(c.verdict().label(), 16), List.of(c.signal()), INDENT, WIDTH));
            List<String> detail = new ArrayList<>();
            detail.add("native " + c.nativeValue());
            if (c.tool().equals("-")) {
                detail.add("valid " + c.tolerance());
            } else {
                detail.add("vs " + c.tool() + ": " + c.toolValue());
                detail.add("tolerance " + c.tolerance());
            }
            if (!c.note().isEmpty()) {
                detail.add("(" + c.note() + ")");
            }
            b.append(TextFit.pieces(INDENT, detail, INDENT, WIDTH));
        }
        b.append('\n').append("samplers:\n");
        sortedSamplers().forEach(s -> b.append(TextFit.words("  " + s.name() + ": ", s.success()
                ? "ok in " + millis(s) : "failed in " + millis(s) + ": " + s.error(), "      ", WIDTH)));
        long agree = count(Check.Verdict.AGREE);
        long bad = checks.stream().filter(c -> c.verdict().failed()).count();
        b.append('\n').append(TextFit.words("result: ", agree + " agree, " + bad + " disagree or invalid, "
                + count(Check.Verdict.CHECKED) + " checked natively, " + count(Check.Verdict.UNAVAILABLE) + " not available",
                "  ", WIDTH));
        return b.toString();
    }

    /** Every field of every check and sampler, for scripts: {@code tailwatch doctor --json}. */
    public String json() {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("platform", platform);
        root.put("time", at.toString());
        root.put("failed", failed());
        ArrayNode cs = root.putArray("checks");
        for (Check c : checks) {
            ObjectNode o = cs.addObject();
            o.put("signal", c.signal());
            o.put("native", c.nativeValue());
            o.put("tool", c.tool());
            o.put("tool_value", c.toolValue());
            o.put("tolerance", c.tolerance());
            o.put("verdict", c.verdict().name().toLowerCase(Locale.ROOT));
            o.put("verdict_label", c.verdict().label());
            o.put("note", c.note());
        }
        ArrayNode ss = root.putArray("samplers");
        sortedSamplers().forEach(s -> {
            ObjectNode o = ss.addObject();
            o.put("name", s.name());
            o.put("success", s.success());
            if (s.duration() != null) {
                o.put("duration_seconds", s.duration().toNanos() / 1e9);
            }
            if (s.error() != null) {
                o.put("error", s.error());
            }
        });
        ObjectNode r = root.putObject("result");
        r.put("agree", count(Check.Verdict.AGREE));
        r.put("disagree", count(Check.Verdict.DISAGREE));
        r.put("invalid", count(Check.Verdict.INVALID));
        r.put("checked", count(Check.Verdict.CHECKED));
        r.put("unavailable", count(Check.Verdict.UNAVAILABLE));
        return Json.write(root) + "\n";
    }

    private long count(Check.Verdict v) {
        return checks.stream().filter(c -> c.verdict() == v).count();
    }

    private List<SamplerResult> sortedSamplers() {
        return samplers.values().stream().sorted(Comparator.comparing(SamplerResult::name)).toList();
    }

    /** A sampler's run time as people read it: "3 ms", "1.2 s". */
    private static String millis(SamplerResult s) {
        if (s.duration() == null) {
            return "? ms";
        }
        double ms = s.duration().toNanos() / 1e6;
        return ms < 1000 ? String.format(Locale.ROOT, "%.0f ms", ms) : String.format(Locale.ROOT, "%.1f s", ms / 1000);
    }
}
