package io.tailwatch.daemon.signals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Parser for the Prometheus text exposition format (version 0.0.4) and the parts of OpenMetrics text
 * an engine's /metrics may use. Handles HELP, TYPE and UNIT lines (other comments are skipped), label
 * values with the escapes {@code \\}, {@code \"} and {@code \n}, a trailing comma in the label set,
 * quoted (UTF-8) metric and label names, the values NaN, +Inf and -Inf, optional timestamps,
 * exemplars ({@code # {...} value}, ignored), CRLF line ends and the OpenMetrics {@code # EOF} marker.
 * Anything else is a {@link FormatException} naming the line and column.
 */
public final class PrometheusTextParser {
    /** Bound on the samples of one exposition; real engines export a few thousand at most. */
    public static final int DEFAULT_MAX_SAMPLES = 200_000;

    private static final Pattern NUMBER = Pattern.compile("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped", "unknown",
            "gaugehistogram", "stateset", "info");

    private PrometheusTextParser() {
    }

    /** One sample line. {@code timestamp} is as written (milliseconds in 0.0.4, seconds in OpenMetrics), or null. */
    public record Sample(String name, Map<String, String> labels, double value, Double timestamp) {
        public Sample {
            labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        }
    }

    /** What HELP, TYPE and UNIT lines said about a metric family (each may be null). */
    public record Family(String name, String type, String help, String unit) {
    }

    /** A parsed exposition: samples in order, and the families described by comment lines. */
    public record Exposition(List<Sample> samples, Map<String, Family> families, boolean openMetricsEof) {
        public Exposition {
            samples = List.copyOf(samples);
            families = Collections.unmodifiableMap(new LinkedHashMap<>(families));
        }

        public List<Sample> samples(String name) {
            List<Sample> out = new ArrayList<>();
            for (Sample s : samples) {
                if (s.name().equals(name)) {
                    out.add(s);
                }
            }
            return out;
        }

        public boolean has(String name) {
            for (Sample s : samples) {
                if (s.name().equals(name)) {
                    return true;
                }
            }
            return false;
        }

        public boolean hasPrefix(String prefix) {
            for (Sample s : samples) {
                if (s.name().startsWith(prefix)) {
                    return true;
                }
            }
            return false;
        }

        /** Sum over every series of {@code name} (NaN samples skipped), or null when there is none. */
        public Double sum(String name) {
            Double total = null;
            for (Sample s : samples) {
                if (s.name().equals(name) && !Double.isNaN(s.value())) {
                    total = (total == null ? 0 : total) + s.value();
                }
            }
            return total;
        }

        /** Largest value over every series of {@code name} (NaN samples skipped), or null when there is none. */
        public Double max(String name) {
            Double best = null;
            for (Sample s : samples) {
                if (s.name().equals(name) && !Double.isNaN(s.value())) {
                    best = best == null ? s.value() : Math.max(best, s.value());
                }
            }
            return best;
        }
    }

    /** A line that is not valid exposition text. */
    public static final class FormatException extends Exception {
        private final int line;
        private final int column;

        public FormatException(int line, int column, String message) {
            super("line " + line + ", column " + column + ": " + message);
            this.line = line;
            this.column = column;
        }

        public int line() {
            return line;
        }

        public int column() {
            return column;
        }
    }

    public static Exposition parse(String text) throws FormatException {
        return parse(text, DEFAULT_MAX_SAMPLES);
    }

    public static Exposition parse(String text, int maxSamples) throws FormatException {
        Parse p = new Parse(name -> true, maxSamples, Integer.MAX_VALUE);
        int start = 0;
        int n = text.length();
        try {
            while (start < n) {
                int end = text.indexOf('\n', start);
                if (end < 0) {
                    end = n;
                }
                p.line(text.substring(start, end > start && text.charAt(end - 1) == '\r' ? end - 1 : end));
                start = end + 1;
            }
        } catch (OverLimit e) {
            throw new IllegalStateException("no bound on kept samples here", e); // every sample is counted first
        }
        return p.done();
    }

    /** More samples of the kept families than the bound: the exposition is over a limit, not broken. */
    public static final class OverLimit extends Exception {
        private final long kept;

        OverLimit(long kept, int bound) {
            super("more than " + bound + " samples of the families read (" + kept + " seen by then)");
            this.kept = kept;
        }

        public long kept() {
            return kept;
        }
    }

    /** Bound on one line of a streamed exposition. */
    public static final int MAX_LINE_BYTES = 64 * 1024;

    /**
     * Parses a streamed exposition line by line, keeping only the samples (and HELP/TYPE/UNIT lines)
     * of the families {@code keep} accepts; every line is still checked. Memory is one line plus what
     * is kept: at most {@code maxKept} samples (more is {@link OverLimit}); at most {@code maxSamples}
     * lines of samples in all and lines of at most {@link #MAX_LINE_BYTES} (more is a
     * {@link FormatException}). I/O failures of {@code in} (a body over its bound, a cut connection)
     * pass through.
     */
    public static Exposition parse(java.io.InputStream in, Predicate<String> keep, int maxSamples,
                                   int maxKept) throws FormatException, OverLimit, java.io.IOException {
        Parse p = new Parse(keep, maxSamples, maxKept);
        byte[] buf = new byte[256];
        byte[] chunk = new byte[8192];
        int len = 0;
        int pos = 0;
        int lim = 0;
        boolean end = false;
        while (!end) {
            // One line into buf.
            len = 0;
            boolean gotLine = false;
            while (true) {
                if (pos == lim) {
                    lim = in.read(chunk, 0, chunk.length);
                    pos = 0;
                    if (lim <= 0) {
                        lim = 0;
                        end = true;
                        break;
                    }
                }
                byte b = chunk[pos++];
                if (b == '\n') {
                    gotLine = true;
                    break;
                }
                if (len == MAX_LINE_BYTES) {
                    throw new FormatException(p.lineNo + 1, 1, "line longer than " + MAX_LINE_BYTES + " bytes");
                }
                if (len == buf.length) {
                    buf = java.util.Arrays.copyOf(buf, Math.min(MAX_LINE_BYTES, buf.length * 2));
                }
                buf[len++] = b;
            }
            if (!gotLine && len == 0) {
                break;
            }
            int stop = len > 0 && buf[len - 1] == '\r' ? len - 1 : len;
            p.line(new String(buf, 0, stop, java.nio.charset.StandardCharsets.UTF_8));
        }
        return p.done();
    }

    /**
     * One parse in progress, whichever way its text arrives: every line (without its line end) goes
     * through {@link #line}, which checks it and keeps the samples and HELP/TYPE/UNIT lines of the
     * families {@code keep} accepts.
     */
    private static final class Parse {
        private final Predicate<String> keep;
        private final int maxSamples;
        private final int maxKept;
        private final List<Sample> samples = new ArrayList<>();
        private final Map<String, Family> families = new LinkedHashMap<>();
        private boolean eof;
        private int lineNo;
        private long seen;

        Parse(Predicate<String> keep, int maxSamples, int maxKept) {
            this.keep = keep;
            this.maxSamples = maxSamples;
            this.maxKept = maxKept;
        }

        void line(String line) throws FormatException, OverLimit {
            lineNo++;
            if (isBlank(line)) {
                return;
            }
            if (eof) {
                throw new FormatException(lineNo, 1, "content after # EOF");
            }
            Cursor c = new Cursor(line, lineNo);
            if (line.charAt(0) == '#') {
                eof = comment(c, families, keep);
                return;
            }
            if (++seen > maxSamples) {
                throw new FormatException(lineNo, 1, "more than " + maxSamples + " samples");
            }
            Sample smp = sample(c);
            if (keep.test(smp.name())) {
                if (samples.size() >= maxKept) {
                    throw new OverLimit(samples.size() + 1, maxKept);
                }
                samples.add(smp);
            }
        }

        Exposition done() {
            return new Exposition(samples, helpUnescaped(families, eof), eof);
        }
    }

    private static boolean isBlank(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch != ' ' && ch != '\t') {
                return false;
            }
        }
        return true;
    }

    /**
     * A comment line; returns true for the OpenMetrics end marker. HELP, TYPE and UNIT of a family
     * {@code keep} accepts go into {@code families}; the others are checked and dropped.
     */
    private static boolean comment(Cursor c, Map<String, Family> families, Predicate<String> keep)
            throws FormatException {
        c.pos = 1;
        c.skipSpace();
        String keyword = c.word();
        switch (keyword) {
            case "EOF" -> {
                c.skipSpace();
                if (!c.atEnd()) {
                    throw c.error("unexpected text after # EOF");
                }
                return true;
            }
            case "HELP" -> {
                String name = familyName(c);
                String help = "";
                if (!c.atEnd()) {
                    c.expectSpace("a space before the help text");
                    help = c.rest(); // unescaped at the end, once the format (# EOF: OpenMetrics) is known
                }
                Family f = families.get(name);
                if (keep.test(name)) {
                    families.put(name, new Family(name, f == null ? null : f.type(), help, f == null ? null : f.unit()));
                }
                return false;
            }
            case "TYPE" -> {
                String name = familyName(c);
                c.expectSpace("a space and a metric type");
                String type = c.word();
                if (!TYPES.contains(type)) {
                    throw c.error("unknown metric type '" + type + "'");
                }
                c.skipSpace();
                if (!c.atEnd()) {
                    throw c.error("unexpected text after the metric type");
                }
                Family f = families.get(name);
                if (keep.test(name)) {
                    families.put(name, new Family(name, type, f == null ? null : f.help(), f == null ? null : f.unit()));
                }
                return false;
            }
            case "UNIT" -> {
                String name = familyName(c);
                c.skipSpace();
                String unit = c.word();
                Family f = families.get(name);
                if (keep.test(name)) {
                    families.put(name, new Family(name, f == null ? null : f.type(), f == null ? null : f.help(), unit));
                }
                return false;
            }
            default -> {
                return false; // a plain comment
            }
        }
    }

    private static String familyName(Cursor c) throws FormatException {
        c.expectSpace("a space and a metric name");
        String name = c.peek() == '"' ? c.quoted() : c.metricName();
        if (name.isEmpty()) {
            throw c.error("expected a metric name");
        }
        return name;
    }

    /** The families with their HELP text unescaped as the format says ({@code openMetrics}: also \\"). */
    private static Map<String, Family> helpUnescaped(Map<String, Family> families, boolean openMetrics) {
        for (Map.Entry<String, Family> e : families.entrySet()) {
            Family f = e.getValue();
            if (f.help() != null && f.help().indexOf('\\') >= 0) {
                e.setValue(new Family(f.name(), f.type(), unescapeHelp(f.help(), openMetrics), f.unit()));
            }
        }
        return families;
    }

    /**
     * HELP text escapes: backslash-backslash and backslash-n, and in OpenMetrics also backslash-quote; any
     * other backslash stays as written.
     */
    private static String unescapeHelp(String s, boolean openMetrics) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\\' && i + 1 < s.length()) {
                char next = s.charAt(i + 1);
                if (next == '\\') {
                    b.append('\\');
                    i++;
                    continue;
                }
                if (next == 'n') {
                    b.append('\n');
                    i++;
                    continue;
                }
                if (next == '"' && openMetrics) {
                    b.append('"');
                    i++;
                    continue;
                }
            }
            b.append(ch);
        }
        return b.toString();
    }

    private static Sample sample(Cursor c) throws FormatException {
        String name = null;
        if (c.peek() != '{') {
            name = c.metricName();
            if (name.isEmpty()) {
                throw c.error("expected a metric name");
            }
        }
        Map<String, String> labels = new LinkedHashMap<>();
        int afterName = c.pos;
        c.skipSpace(); // blanks between the name and the label set are allowed
        if (c.peek() == '{') {
            c.pos++;
            name = labelSet(c, name, labels);
            if (name == null) {
                throw c.error("expected a metric name");
            }
            c.expectSpace("a space and a value");
        } else if (c.pos == afterName) {
            throw c.error("expected a space and a value");
        }
        double value = number(c, c.token(), "value");
        Double timestamp = null;
        c.skipSpace();
        if (!c.atEnd() && c.peek() != '#') {
            timestamp = number(c, c.token(), "timestamp");
            if (Double.isNaN(timestamp) || Double.isInfinite(timestamp)) {
                throw c.error("a timestamp must be finite");
            }
            c.skipSpace();
        }
        if (!c.atEnd() && c.peek() != '#') {
            throw c.error("unexpected text after the value");
        }
        // From here on: an exemplar (# {...} value [timestamp]), which is ignored.
        return new Sample(name, labels, value, timestamp);
    }

    /** Reads labels up to the closing brace; returns the metric name (possibly given inside the braces). */
    private static String labelSet(Cursor c, String name, Map<String, String> labels) throws FormatException {
        boolean first = true;
        while (true) {
            c.skipSpace();
            if (c.atEnd()) {
                throw c.error("unterminated label set");
            }
            if (c.peek() == '}') {
                c.pos++;
                return name;
            }
            String label;
            boolean quoted = c.peek() == '"';
            label = quoted ? c.quoted() : c.labelName();
            if (label.isEmpty()) {
                throw c.error("expected a label name");
            }
            c.skipSpace();
            if (quoted && first && name == null && (c.peek() == ',' || c.peek() == '}')) {
                name = label; // {"metric.name", label="v"}
            } else {
                if (c.peek() != '=') {
                    throw c.error("expected '=' after label name '" + label + "'");
                }
                c.pos++;
                c.skipSpace();
                if (c.peek() != '"') {
                    throw c.error("expected a quoted value for label '" + label + "'");
                }
                String value = c.quoted();
                if (labels.put(label, value) != null) {
                    throw c.error("label '" + label + "' appears twice");
                }
                c.skipSpace();
            }
            first = false;
            if (c.atEnd()) {
                throw c.error("unterminated label set");
            }
            if (c.peek() == ',') {
                c.pos++;
            } else if (c.peek() != '}') {
                throw c.error("expected ',' or '}' in the label set");
            }
        }
    }

    private static double number(Cursor c, String t, String what) throws FormatException {
        if (t.isEmpty()) {
            throw c.error("expected a " + what);
        }
        String bare = t.charAt(0) == '+' || t.charAt(0) == '-' ? t.substring(1) : t;
        if (bare.equalsIgnoreCase("nan")) {
            return Double.NaN;
        }
        if (bare.equalsIgnoreCase("inf") || bare.equalsIgnoreCase("infinity")) {
            return t.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!NUMBER.matcher(t).matches()) {
            throw new FormatException(c.line, c.pos - t.length() + 1, "'" + t + "' is not a number (" + what + ")");
        }
        return Double.parseDouble(t);
    }

    /** Position within one line. */
    private static final class Cursor {
        final String s;
        final int line;
        int pos;

        Cursor(String s, int line) {
            this.s = s;
            this.line = line;
        }

        boolean atEnd() {
            return pos >= s.length();
        }

        char peek() {
            return atEnd() ? '\0' : s.charAt(pos);
        }

        void skipSpace() {
            while (!atEnd() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
                pos++;
            }
        }

        void expectSpace(String what) throws FormatException {
            if (atEnd() || (peek() != ' ' && peek() != '\t')) {
                throw error("expected " + what);
            }
            skipSpace();
        }

        String word() {
            int from = pos;
            while (!atEnd() && s.charAt(pos) != ' ' && s.charAt(pos) != '\t') {
                pos++;
            }
            return s.substring(from, pos);
        }

        String token() {
            return word();
        }

        String rest() {
            String r = s.substring(pos);
            pos = s.length();
            return r;
        }

        String metricName() {
            int from = pos;
            while (!atEnd()) {
                char ch = s.charAt(pos);
                boolean ok = ch == '_' || ch == ':' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
                        || (pos > from && ch >= '0' && ch <= '9');
                if (!ok) {
                    break;
                }
                pos++;
            }
            return s.substring(from, pos);
        }

        String labelName() {
            int from = pos;
            while (!atEnd()) {
                char ch = s.charAt(pos);
                boolean ok = ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
                        || (pos > from && ch >= '0' && ch <= '9');
                if (!ok) {
                    break;
                }
                pos++;
            }
            return s.substring(from, pos);
        }

        /** A double-quoted string with the escapes backslash, quote and n. */
        String quoted() throws FormatException {
            pos++; // opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (atEnd()) {
                    throw error("unterminated quoted string");
                }
                char ch = s.charAt(pos++);
                if (ch == '"') {
                    return b.toString();
                }
                if (ch != '\\') {
                    b.append(ch);
                    continue;
                }
                if (atEnd()) {
                    throw error("unterminated escape sequence");
                }
                char e = s.charAt(pos++);
                switch (e) {
                    case '\\' -> b.append('\\');
                    case '"' -> b.append('"');
                    case 'n' -> b.append('\n');
                    default -> {
                        pos--;
                        throw error("invalid escape sequence '\\" + e + "'");
                    }
                }
            }
        }

        FormatException error(String message) {
            return new FormatException(line, pos + 1, message);
        }
    }
}
