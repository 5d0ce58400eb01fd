package io.tailwatch.tools.doctor;

import java.util.Locale;

/** Builders for the usual kinds of {@link Check}. */
public final class Checks {
    private Checks() {
    }

    /** Native vs tool, agreeing when |native - tool| <= tolerance. */
    public static Check compare(String signal, Double nativeValue, String tool, Double toolValue, double tolerance,
                                String unit) {
        String tol = format(tolerance, unit);
        if (nativeValue == null && toolValue == null) {
            return new Check(signal, "absent", tool, "absent", tol, Check.Verdict.AGREE, "absent on both sides");
        }
        if (toolValue == null) {
            return new Check(signal, format(nativeValue, unit), tool, "absent", tol, Check.Verdict.DISAGREE,
                    "the tool does not show what tailwatch read");
        }
        if (nativeValue == null) {
            return new Check(signal, "absent", tool, format(toolValue, unit), tol, Check.Verdict.DISAGREE,
                    "tailwatch could not read what the tool shows");
        }
        double diff = Math.abs(nativeValue - toolValue);
        boolean agree = diff <= tolerance;
        return new Check(signal, format(nativeValue, unit), tool, format(toolValue, unit), tol,
                agree ? Check.Verdict.AGREE : Check.Verdict.DISAGREE,
                agree ? "" : "differs by " + format(diff, unit));
    }

    /**
     * Native vs tool for a figure that moves between the two reads (page counts, RSS): they agree
     * when |native - tool| <= max(relative x |tool|, floor). The tolerance is the field's own, so a
     * field read as 0 fails whenever the tool shows more than the floor; the floor absorbs pages
     * that moved in the moment between the sample and the tool.
     */
    public static Check compareRelative(String signal, Double nativeValue, String tool, Double toolValue,
                                        double relative, double floor, String unit) {
        double tol = toolValue == null ? floor : Math.max(Math.abs(toolValue) * relative, floor);
        Check c = compare(signal, nativeValue, tool, toolValue, tol, unit);
        String rule = String.format(Locale.ROOT, "%s %% of the tool's value, at least %s", trim(relative * 100),
                format(floor, unit));
        return new Check(c.signal(), c.nativeValue(), c.tool(), c.toolValue(),
                rule + (toolValue == null ? "" : ": " + format(tol, unit)), c.verdict(), c.note());
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** The tool could not be run or its output not parsed. */
    public static Check toolUnavailable(String signal, Double nativeValue, String tool, String why, String unit) {
        return new Check(signal, nativeValue == null ? "absent" : format(nativeValue, unit), tool, "unavailable", "-",
                Check.Verdict.UNAVAILABLE, why);
    }

    /** A signal no tool prints: checked against its invariant range only. Absent is not a failure. */
    public static Check inRange(String signal, Double nativeValue, double min, double maxExclusive, String unit,
                                String why) {
        String range = "[" + format(min, unit) + ", " + format(maxExclusive, unit) + ")";
        if (nativeValue == null) {
            return new Check(signal, "absent", "-", "-", range, Check.Verdict.UNAVAILABLE, why);
        }
        boolean ok = nativeValue >= min && nativeValue < maxExclusive && !nativeValue.isNaN();
        return new Check(signal, format(nativeValue, unit), "-", "-", range,
                ok ? Check.Verdict.CHECKED : Check.Verdict.INVALID, ok ? why : "outside " + range);
    }

    static String format(double v, String unit) {
        if (unit.equals("B")) {
            return String.format(Locale.ROOT, "%d B (%.2f GiB)", (long) v, v / (1L << 30));
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return (long) v + (unit.isEmpty() ? "" : " " + unit);
        }
        return String.format(Locale.ROOT, "%.4g", v) + (unit.isEmpty() ? "" : " " + unit);
    }
}
