package io.tailwatch.metrics;

import java.util.Map;
import java.util.TreeMap;

/** Small helper to build attribute maps from key/value pairs. */
public final class Attrs {
    private Attrs() {
    }

    /** Longest attribute value exported; longer values (from engines: versions, model names) are cut. */
    public static final int MAX_VALUE_CHARS = 128;

    /**
     * {@code v} if it fits in {@link #MAX_VALUE_CHARS}, else its first 111 characters, "~" and 16 hex digits
     * of its hash: bounded, and two long values that share a prefix stay two series.
     */
    public static String bound(String v) {
        v = printable(v);
        if (v == null || v.length() <= MAX_VALUE_CHARS) {
            return v;
        }
        long h = 1125899906842597L;
        for (int i = 0; i < v.length(); i++) {
            h = 31 * h + v.charAt(i);
        }
        return v.substring(0, MAX_VALUE_CHARS - 17) + "~" + String.format("%016x", h);
    }

    /**
     * {@code v} with every control character (C0, DEL, C1: NUL, CR, LF, ESC, ...) replaced by U+FFFD, so
     * no value from an engine carries one into an exposition, an OTLP attribute or a terminal that shows them.
     */
    static String printable(String v) {
        if (v == null) {
            return null;
        }
        char[] c = null;
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch < 0x20 || (ch >= 0x7f && ch <= 0x9f)) {
                if (c == null) {
                    c = v.toCharArray();
                }
                c[i] = '\uFFFD';
            }
        }
        return c == null ? v : new String(c);
    }

    /** A sorted copy with every value bounded by {@link #bound(String)}. */
    public static Map<String, String> bounded(Map<String, String> attributes) {
        Map<String, String> m = new TreeMap<>();
        attributes.forEach((k, v) -> m.put(k, bound(v)));
        return m;
    }

    /** Key/value pairs plus one enumerated value under its own key. */
    public static Map<String, String> of(AttrValue typed, String... keyValues) {
        Map<String, String> m = of(keyValues);
        put(m, typed);
        return m;
    }

    /** Puts an enumerated value under its own key. */
    public static void put(Map<String, String> attributes, AttrValue value) {
        attributes.put(value.key(), value.value());
    }

    public static Map<String, String> of(String... keyValues) {
        if (keyValues.length % 2 != 0) {
            throw new IllegalArgumentException("attributes come in key/value pairs");
        }
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }
}
