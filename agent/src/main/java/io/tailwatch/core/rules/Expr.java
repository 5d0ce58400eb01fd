package io.tailwatch.core.rules;

import io.tailwatch.metrics.AttrValue;
import io.tailwatch.metrics.AttributeDef;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The small subset of PromQL the rules need, evaluated over the agent's own snapshots and rendered
 * as PromQL over the exported names. One expression tree gives both, so the agent and Prometheus
 * fire on the same condition. Labels are Prometheus label names; an empty label value is absent.
 * Nodes with a range ({@link #minOverTime}) keep a bounded history, so build a fresh tree per evaluator.
 */
public interface Expr {
    /** Evaluates at {@code at} over {@code snapshot}; filter semantics as PromQL (no {@code bool}). */
    List<Sample> eval(MetricSnapshot snapshot, Instant at);

    /** PromQL text. */
    String promql();

    /** One element of an instant vector. */
    record Sample(Map<String, String> labels, double value) {
        public Sample {
            labels = java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
        }
    }

    /** Comparison operators. */
    enum Op {
        GT(">"), GE(">="), LT("<"), LE("<="), EQ("=="), NE("!=");

        final String text;

        Op(String text) {
            this.text = text;
        }

        boolean test(double a, double b) {
            return switch (this) {
                case GT -> a > b;
                case GE -> a >= b;
                case LT -> a < b;
                case LE -> a <= b;
                case EQ -> a == b;
                case NE -> a != b;
            };
        }
    }

    /**
     * Vector matching: {@code on(...)}, {@code ignoring(...)}, or all labels; {@code groupLeft}: many-to-one
     * ({@code group_left}), so a comparison keeps every label of its left side (a one-to-one {@code on(...)} keeps
     * only the listed ones, losing the labels a route needs, such as {@code host}).
     */
    record Matching(boolean on, List<String> labels, boolean groupLeft) {
        public static final Matching ALL = new Matching(false, List.of());

        Matching(boolean on, List<String> labels) {
            this(on, labels, false);
        }

        public static Matching on(String... labels) {
            return new Matching(true, List.of(labels));
        }

        public static Matching ignoring(String... labels) {
            return new Matching(false, List.of(labels));
        }

        /** The same matching, many-to-one: each left series keeps its labels ({@code group_left}). */
        public Matching keepingLeft() {
            return new Matching(on, labels, true);
        }

        Map<String, String> signature(Map<String, String> labels) {
            Map<String, String> sig = new TreeMap<>();
            for (Map.Entry<String, String> e : labels.entrySet()) {
                if (on == this.labels.contains(e.getKey())) {
                    sig.put(e.getKey(), e.getValue());
                }
            }
            return sig;
        }

        String render() {
            if (!on && labels.isEmpty()) {
                return "";
            }
            return (on ? " on(" : " ignoring(") + String.join(", ", labels) + ")" + (groupLeft ? " group_left" : "");
        }
    }

    // ---- factories -------------------------------------------------------------------------

    /** A series selector; matchers are attribute names (as declared) to exact values, or "=~" regexes. */
    static Expr select(MetricDef metric, String... matchers) {
        return new Select(metric, matchers);
    }

    /** A series selector whose first matcher is an enumerated value under its own key. */
    static Expr select(MetricDef metric, AttrValue typed, String... matchers) {
        String[] all = new String[matchers.length + 2];
        all[0] = typed.key();
        all[1] = typed.value();
        System.arraycopy(matchers, 0, all, 2, matchers.length);
        return new Select(metric, all);
    }

    static Expr cmp(Expr left, Op op, double scalar) {
        return new CompareScalar(left, op, scalar);
    }

    static Expr cmp(Expr left, Op op, Matching m, Expr right) {
        return new CompareVector(left, op, m, right);
    }

    static Expr div(Expr left, Matching m, Expr right) {
        return new Arith('/', left, m, right);
    }

    static Expr minus(Expr left, Matching m, Expr right) {
        return new Arith('-', left, m, right);
    }

    static Expr times(Expr left, double scalar) {
        return new ScalarTimes(left, scalar);
    }

    static Expr and(Expr left, Matching m, Expr right) {
        return new SetOp("and", left, m, right);
    }

    static Expr or(Expr left, Expr right) {
        return new SetOp("or", left, Matching.ALL, right);
    }

    /** {@code left or on(...) right}: the right side only where the left has no series of the same labels. */
    static Expr or(Expr left, Matching m, Expr right) {
        return new SetOp("or", left, m, right);
    }

    static Expr unless(Expr left, Matching m, Expr right) {
        return new SetOp("unless", left, m, right);
    }

    static Expr minOverTime(Expr selector, Duration range) {
        if (!(selector instanceof Select)) {
            throw new IllegalArgumentException("min_over_time takes a selector");
        }
        return new MinOverTime((Select) selector, range, MinOverTime.Fn.MIN);
    }

    /**
     * {@code increase(counter[range])}: how much a counter rose over the range (resets counted as
     * a restart from 0). Needs two points in the range, as in PromQL; the agent does not extrapolate
     * to the range edges as Prometheus does, which only matters for thresholds near the boundary.
     */
    static Expr increase(Expr selector, Duration range) {
        if (!(selector instanceof Select sel) || sel.metric().instrument() != io.tailwatch.metrics.Instrument.COUNTER) {
            throw new IllegalArgumentException("increase takes a counter selector");
        }
        return new MinOverTime(sel, range, MinOverTime.Fn.INCREASE);
    }

    /** {@code absent(selector)}: one sample (value 1, no labels) when the selector matches nothing. */
    static Expr absent(Expr selector) {
        if (!(selector instanceof Select)) {
            throw new IllegalArgumentException("absent takes a selector");
        }
        return new Absent((Select) selector);
    }

    /**
     * PromQL that only Prometheus evaluates (an export-only rule's, over series the agent does not have, such
     * as {@code up}): the agent's own evaluation yields nothing.
     */
    static Expr prometheusOnly(String promql) {
        return new PrometheusOnly(promql);
    }

    static Expr mul(Expr left, Matching m, Expr right) {
        return new Arith('*', left, m, right);
    }

    static Expr countBy(Expr inner, String... labels) {
        return new CountBy(inner, List.of(labels));
    }

    /** Number literal as PromQL prints it: integers without a fraction, others in the shortest form. */
    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v).toLowerCase(Locale.ROOT);
    }

    // ---- nodes -----------------------------------------------------------------------------

    final class Select implements Expr {
        private final MetricDef metric;
        private final Map<String, String> exact = new LinkedHashMap<>();
        private final Map<String, Pattern> regex = new LinkedHashMap<>();
        private final Map<String, String> regexText = new LinkedHashMap<>();

        Select(MetricDef metric, String... matchers) {
            if (matchers.length % 2 != 0) {
                throw new IllegalArgumentException("matchers come in pairs");
            }
            this.metric = metric;
            for (int i = 0; i < matchers.length; i += 2) {
                String attr = matchers[i];
                boolean re = attr.endsWith("=~");
                String name = re ? attr.substring(0, attr.length() - 2) : attr;
                AttributeDef a = metric.attribute(name);
                if (a == null) {
                    throw new IllegalArgumentException(metric.name() + " has no attribute " + name);
                }
                if (re) {
                    regex.put(MetricDef.labelName(name), Pattern.compile(matchers[i + 1]));
                    regexText.put(MetricDef.labelName(name), matchers[i + 1]);
                } else {
                    if (!a.accepts(matchers[i + 1])) {
                        throw new IllegalArgumentException(metric.name() + ": " + name + " never has value " + matchers[i + 1]);
                    }
                    exact.put(MetricDef.labelName(name), matchers[i + 1]);
                }
            }
        }

        public MetricDef metric() {
            return metric;
        }

        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            List<Sample> out = new ArrayList<>();
            for (Point p : snapshot.of(metric)) {
                Map<String, String> labels = new TreeMap<>();
                for (Map.Entry<String, String> e : p.attributes().entrySet()) {
                    if (!e.getValue().isEmpty()) {
                        labels.put(MetricDef.labelName(e.getKey()), e.getValue());
                    }
                }
                if (matches(labels)) {
                    out.add(new Sample(labels, p.value()));
                }
            }
            return out;
        }

        private boolean matches(Map<String, String> labels) {
            for (Map.Entry<String, String> e : exact.entrySet()) {
                if (!e.getValue().equals(labels.getOrDefault(e.getKey(), ""))) {
                    return false;
                }
            }
            for (Map.Entry<String, Pattern> e : regex.entrySet()) {
                if (!e.getValue().matcher(labels.getOrDefault(e.getKey(), "")).matches()) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String promql() {
            List<String> parts = new ArrayList<>();
            exact.forEach((k, v) -> parts.add(k + "=\"" + v + "\""));
            regexText.forEach((k, v) -> parts.add(k + "=~\"" + v.replace("\\", "\\\\") + "\""));
            return metric.prometheusName() + (parts.isEmpty() ? "" : "{" + String.join(", ", parts) + "}");
        }
    }

    record CompareScalar(Expr left, Op op, double scalar) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            List<Sample> out = new ArrayList<>();
            for (Sample s : left.eval(snapshot, at)) {
                if (op.test(s.value(), scalar)) {
                    out.add(s);
                }
            }
            return out;
        }

        @Override
        public String promql() {
            return operand(left) + " " + op.text + " " + number(scalar);
        }
    }

    record CompareVector(Expr left, Op op, Matching matching, Expr right) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            // As PromQL: a one-to-one on(...) keeps only those labels, ignoring(...) drops them; group_left
            // keeps the left series' own.
            return join(left, right, matching, snapshot, at, (l, r) -> op.test(l.value(), r.value())
                    ? new Sample(matching.groupLeft() ? l.labels() : matching.signature(l.labels()), l.value()) : null);
        }

        @Override
        public String promql() {
            return operand(left) + " " + op.text + matching.render() + " " + operand(right);
        }
    }

    record Arith(char op, Expr left, Matching matching, Expr right) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            // As PromQL: the result carries the matching labels (lhs labels minus ignored ones).
            return join(left, right, matching, snapshot, at, (l, r) -> new Sample(matching.signature(l.labels()), switch (op) {
                case '/' -> l.value() / r.value();
                case '*' -> l.value() * r.value();
                default -> l.value() - r.value();
            }));
        }

        @Override
        public String promql() {
            return operand(left) + " " + op + matching.render() + " " + operand(right);
        }
    }

    record ScalarTimes(Expr left, double scalar) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            List<Sample> out = new ArrayList<>();
            for (Sample s : left.eval(snapshot, at)) {
                out.add(new Sample(s.labels(), s.value() * scalar));
            }
            return out;
        }

        @Override
        public String promql() {
            return number(scalar) + " * " + operand(left);
        }
    }

    record SetOp(String op, Expr left, Matching matching, Expr right) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            List<Sample> l = left.eval(snapshot, at);
            List<Sample> r = right.eval(snapshot, at);
            Set<Map<String, String>> rsig = new HashSet<>();
            for (Sample s : r) {
                rsig.add(matching.signature(s.labels()));
            }
            List<Sample> out = new ArrayList<>();
            switch (op) {
                case "and" -> l.stream().filter(s -> rsig.contains(matching.signature(s.labels()))).forEach(out::add);
                case "unless" -> l.stream().filter(s -> !rsig.contains(matching.signature(s.labels()))).forEach(out::add);
                default -> {
                    out.addAll(l);
                    Set<Map<String, String>> lsig = new HashSet<>();
                    for (Sample s : l) {
                        lsig.add(matching.signature(s.labels()));
                    }
                    r.stream().filter(s -> !lsig.contains(matching.signature(s.labels()))).forEach(out::add);
                }
            }
            return out;
        }

        @Override
        public String promql() {
            return "(" + left.promql() + ") " + op + matching.render() + " (" + right.promql() + ")";
        }
    }

    /** A function over a range of one selector ({@code min_over_time} or {@code increase}); at most {@value #MAX_POINTS} points per series. */
    final class MinOverTime implements Expr {
        enum Fn { MIN, INCREASE }

        static final int MAX_POINTS = 2048;
        static final int MAX_SERIES = 64;
        private final Select selector;
        private final Duration range;
        private final Fn fn;
        private final Map<Map<String, String>, Deque<double[]>> history = new HashMap<>();

        MinOverTime(Select selector, Duration range, Fn fn) {
            this.selector = selector;
            this.range = range;
            this.fn = fn;
        }

        @Override
        public synchronized List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            long now = at.toEpochMilli();
            long from = now - range.toMillis();
            for (Sample s : selector.eval(snapshot, at)) {
                Deque<double[]> h = history.get(s.labels());
                if (h == null) {
                    if (history.size() >= MAX_SERIES) {
                        continue;
                    }
                    h = new ArrayDeque<>();
                    history.put(s.labels(), h);
                }
                if (h.isEmpty() || h.peekLast()[0] < now) {
                    h.addLast(new double[] {now, s.value()});
                }
                while (h.size() > MAX_POINTS) {
                    h.removeFirst();
                }
            }
            List<Sample> out = new ArrayList<>();
            for (Iterator<Map.Entry<Map<String, String>, Deque<double[]>>> it = history.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<Map<String, String>, Deque<double[]>> e = it.next();
                Deque<double[]> h = e.getValue();
                while (!h.isEmpty() && h.peekFirst()[0] < from) {
                    h.removeFirst();
                }
                if (h.isEmpty()) {
                    it.remove();
                    continue;
                }
                if (fn == Fn.MIN) {
                    double min = Double.POSITIVE_INFINITY;
                    for (double[] p : h) {
                        min = Math.min(min, p[1]);
                    }
                    out.add(new Sample(e.getKey(), min));
                } else if (h.size() >= 2) {
                    double rise = 0;
                    double prev = Double.NaN;
                    for (double[] p : h) {
                        if (!Double.isNaN(prev)) {
                            rise += p[1] >= prev ? p[1] - prev : p[1];
                        }
                        prev = p[1];
                    }
                    // As PromQL, the function drops the metric name but keeps the other labels.
                    out.add(new Sample(e.getKey(), rise));
                }
            }
            return out;
        }

        @Override
        public String promql() {
            String f = fn == Fn.MIN ? "min_over_time" : "increase";
            return f + "(" + selector.promql() + "[" + io.tailwatch.core.units.Units.format(range) + "])";
        }
    }

    record PrometheusOnly(String promql) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            return List.of();
        }
    }

    /** absent(selector): a single label-less sample of 1 while nothing matches. */
    record Absent(Select selector) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            return selector.eval(snapshot, at).isEmpty() ? List.of(new Sample(Map.of(), 1)) : List.of();
        }

        @Override
        public String promql() {
            return "absent(" + selector.promql() + ")";
        }
    }

    record CountBy(Expr inner, List<String> by) implements Expr {
        @Override
        public List<Sample> eval(MetricSnapshot snapshot, Instant at) {
            Map<Map<String, String>, Integer> counts = new LinkedHashMap<>();
            for (Sample s : inner.eval(snapshot, at)) {
                Map<String, String> g = new TreeMap<>();
                for (String l : by) {
                    String v = s.labels().get(l);
                    if (v != null) {
                        g.put(l, v);
                    }
                }
                counts.merge(g, 1, Integer::sum);
            }
            List<Sample> out = new ArrayList<>();
            counts.forEach((k, v) -> out.add(new Sample(k, v)));
            return out;
        }

        @Override
        public String promql() {
            return "count by(" + String.join(", ", by) + ") (" + inner.promql() + ")";
        }
    }

    /**
     * One-to-one vector matching: each sample of {@code left} with the first sample of {@code right} of the same
     * signature under {@code m} (a left sample with none is dropped), made into a result by {@code pairing}
     * (null: the pair is dropped too).
     */
    private static List<Sample> join(Expr left, Expr right, Matching m, MetricSnapshot snapshot, Instant at,
            java.util.function.BinaryOperator<Sample> pairing) {
        Map<Map<String, String>, Sample> rhs = index(right.eval(snapshot, at), m);
        List<Sample> out = new ArrayList<>();
        for (Sample s : left.eval(snapshot, at)) {
            Map<String, String> sig = m.signature(s.labels());
            Sample r = rhs.get(sig);
            Sample joined = r == null ? null : pairing.apply(s, r);
            if (joined != null) {
                out.add(joined);
            }
        }
        return out;
    }

    private static Map<Map<String, String>, Sample> index(List<Sample> samples, Matching m) {
        Map<Map<String, String>, Sample> out = new HashMap<>();
        for (Sample s : samples) {
            out.putIfAbsent(m.signature(s.labels()), s);
        }
        return out;
    }

    private static String operand(Expr e) {
        return e instanceof Select || e instanceof MinOverTime || e instanceof CountBy || e instanceof Absent ? e.promql() : "(" + e.promql() + ")";
    }
}
