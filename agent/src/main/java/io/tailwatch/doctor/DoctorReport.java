package io.tailwatch.doctor;

import io.tailwatch.host.SamplerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Renders the checks as a text table and decides the exit status. */
public final class DoctorReport {
    private final String platform;
    private final List<Check> checks;
    private final Map<String, SamplerResult> samplers;

    public DoctorReport(String platform, List<Check> checks, Map<String, SamplerResult> samplers) {
        this.platform = platform;
        this.checks = List.copyOf(checks);
        this.samplers = Map.copyOf(samplers);
    }

    public List<Check> checks() {
        return checks;
    }

    public boolean failed() {
        return checks.stream().anyMatch(c -> c.verdict().failed());
    }

    public String render() {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"signal", "native", "tool", "tool value", "tolerance", "verdict"});
        for (Check c : checks) {
            rows.add(new String[] {c.signal(), c.nativeValue(), c.tool(), c.toolValue(), c.tolerance(),
                    c.verdict().label() + (c.note().isEmpty() ? "" : " (" + c.note() + ")")});
        }
        int[] width = new int[6];
        for (String[] r : rows) {
            for (int i = 0; i < 5; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        b.append("tailwatch doctor: host signals read natively beside the OS's own tools (").append(platform).append(")\n\n");
        for (String[] r : rows) {
            for (int i = 0; i < 5; i++) {
                b.append(r[i]).append(" ".repeat(width[i] - r[i].length() + 2));
            }
            b.append(r[5]).append('\n');
        }
        b.append('\n').append("samplers:");
        samplers.values().stream().sorted(java.util.Comparator.comparing(SamplerResult::name)).forEach(s ->
                b.append("\n  ").append(s.name()).append(": ").append(s.success() ? "ok" : "failed: " + s.error()));
        long agree = checks.stream().filter(c -> c.verdict() == Check.Verdict.AGREE).count();
        long bad = checks.stream().filter(c -> c.verdict().failed()).count();
        long checked = checks.stream().filter(c -> c.verdict() == Check.Verdict.CHECKED).count();
        long na = checks.stream().filter(c -> c.verdict() == Check.Verdict.UNAVAILABLE).count();
        b.append("\n\nresult: ").append(agree).append(" agree, ").append(bad).append(" disagree or invalid, ")
                .append(checked).append(" checked natively, ").append(na).append(" not available\n");
        return b.toString();
    }
}
