package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The range check of every number that comes from outside, where it enters: a value out of its field's
 * range (negative, non-finite, larger than the field can mean) is dropped (the caller sees null, unknown),
 * counted per source and field ({@code tailwatch_input_rejected_total}) and logged once per source and
 * field. Sources and fields are names from the code, so the count of series is bounded.
 */
public final class InputRange {
    private static final Logger LOG = LoggerFactory.getLogger(InputRange.class);

    /** Tokens of one answer: no context holds a billion. */
    public static final long MAX_TOKENS = 1L << 30;
    /** A duration an engine reports, in nanoseconds: one day. */
    public static final long MAX_DURATION_NANOS = 86_400L * 1_000_000_000L;
    /** Tokens a second an engine reports. */
    public static final double MAX_TOKEN_RATE = 1e7;
    /** A model's size in bytes: 1 PiB. */
    public static final long MAX_MODEL_BYTES = 1L << 50;
    /** A context length in tokens. */
    public static final long MAX_CONTEXT = 1L << 27;
    /** Requests an engine says it runs or queues. */
    public static final double MAX_REQUESTS = 1e6;

    /** The most (source, field) pairs counted apart; they are code names, so this is never reached. */
    private static final int MAX_KEYS = 256;

    private static final Map<String, AtomicLong> REJECTED = new ConcurrentHashMap<>();

    private InputRange() {
    }

    /** {@code n} as a whole count in {@code [0, max]}, or null (absent, not a number, or out of range: counted). */
    public static Long count(String source, String field, JsonNode n, long max) {
        if (n == null || n.isNull() || n.isMissingNode() || !n.isNumber()) {
            return null;
        }
        if (!n.canConvertToLong() || (!n.isIntegralNumber() && n.doubleValue() != Math.rint(n.doubleValue()))) {
            reject(source, field, n.asText());
            return null;
        }
        return count(source, field, n.longValue(), max);
    }

    /** {@code v} (null: unknown) in {@code [0, max]}, or null (counted when it was a value out of range). */
    public static Long count(String source, String field, Long v, long max) {
        return v == null ? null : count(source, field, v.longValue(), max);
    }

    /** {@code v} in {@code [0, max]}, or null (counted). */
    public static Long count(String source, String field, long v, long max) {
        if (v < 0 || v > max) {
            reject(source, field, Long.toString(v));
            return null;
        }
        return v;
    }

    /** {@code n} as a number in {@code [min, max]}, or null (absent or not a number: not counted; out of range: counted). */
    public static Double number(String source, String field, JsonNode n, double min, double max) {
        if (n == null || !n.isNumber()) {
            return null;
        }
        return number(source, field, n.doubleValue(), min, max);
    }

    /** {@code v} (null: unknown) in {@code [min, max]}, or null (counted when it was a value out of range). */
    public static Double number(String source, String field, Double v, double min, double max) {
        if (v == null) {
            return null;
        }
        if (!(v >= min && v <= max)) { // NaN fails both
            reject(source, field, Double.toString(v));
            return null;
        }
        return v;
    }

    /** The largest magnitude an engine's extra figure may have: past 2^53 a double no longer holds whole numbers. */
    public static final double MAX_DETAIL = 9.007199254740992e15;
    /** How deep the extras' maps and lists are walked; deeper is dropped (the sources nest two levels). */
    private static final int MAX_DETAIL_DEPTH = 4;

    /**
     * A copy of an engine source's extras (for the status API) with every number out of range left out:
     * non-finite, or larger in magnitude than {@link #MAX_DETAIL}. Nested maps and lists are walked (at most
     * {@value #MAX_DETAIL_DEPTH} deep); each number left out is counted under {@code field}. Extras are free-form,
     * so the range is the one every figure shares; the figures the agent acts on have their own ranges.
     */
    public static Map<String, Object> details(String source, String field, Map<String, ?> details) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        if (details != null) {
            details.forEach((k, v) -> {
                Object kept = detail(source, field, v, 1);
                if (kept != null || v == null) {
                    out.put(k, kept);
                }
            });
        }
        return out;
    }

    private static Object detail(String source, String field, Object v, int depth) {
        if (v instanceof Number n) {
            double d = n.doubleValue();
            if (!(Math.abs(d) <= MAX_DETAIL)) { // NaN fails too
                reject(source, field, n.toString());
                return null;
            }
            return n;
        }
        if (depth >= MAX_DETAIL_DEPTH && (v instanceof Map || v instanceof List)) {
            return null;
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new java.util.LinkedHashMap<>();
            m.forEach((k, x) -> {
                Object kept = detail(source, field, x, depth + 1);
                if (kept != null || x == null) {
                    out.put(k, kept);
                }
            });
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            for (Object x : l) {
                Object kept = detail(source, field, x, depth + 1);
                if (kept != null || x == null) {
                    out.add(kept);
                }
            }
            return out;
        }
        return v;
    }

    /** {@code a + b}, held at Long.MAX_VALUE rather than wrapping (counters saturate). */
    public static long saturatingAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }

    private static void reject(String source, String field, String value) {
        String key = source + "\u0000" + field;
        AtomicLong c = REJECTED.get(key);
        if (c == null) {
            if (REJECTED.size() >= MAX_KEYS) {
                return;
            }
            c = REJECTED.computeIfAbsent(key, k -> new AtomicLong());
        }
        if (c.getAndUpdate(x -> x == Long.MAX_VALUE ? x : x + 1) == 0) {
            LOG.warn("dropped {} from {}: {} is out of its range (logged once; tailwatch_input_rejected_total counts them)",
                    field, source, io.tailwatch.core.logging.LogGuard.value(value));
        }
    }

    /** Values dropped so far from {@code source}'s {@code field}. */
    public static long rejected(String source, String field) {
        AtomicLong c = REJECTED.get(source + "\u0000" + field);
        return c == null ? 0 : c.get();
    }

    /** The counter's series: one per source and field that dropped a value. */
    public static List<Point> points() {
        List<Point> out = new ArrayList<>();
        REJECTED.forEach((k, v) -> {
            int cut = k.indexOf('\u0000');
            out.add(Point.of(SelfMetrics.INPUT_REJECTED, v.get(), AttrKeys.INPUT_SOURCE, k.substring(0, cut),
                    AttrKeys.INPUT_FIELD, k.substring(cut + 1)));
        });
        return out;
    }
}
