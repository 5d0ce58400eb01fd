package io.tailwatch.daemon.alerts;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * Alertmanager's fingerprint of a label set: 64-bit FNV-1a over the label names in byte order, each name
 * and value followed by the byte 0xff, printed as 16 hex digits. It is the {@code fingerprint}
 * Alertmanager's API gives the same labels, so one alert has one identity in both.
 */
public final class Fingerprint {
    private static final long OFFSET = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;
    private static final int SEPARATOR = 0xff;

    private Fingerprint() {
    }

    /** The fingerprint of the labels {@code alertname}, {@code severity} and the alert's own. */
    static String of(String name, String severity, Map<String, String> labels) {
        Map<String, String> all = new TreeMap<>(labels);
        all.put("alertname", name);
        all.put("severity", severity);
        return of(all);
    }

    /** The fingerprint of a complete label set. */
    public static String of(Map<String, String> labelSet) {
        // Go sorts label names as strings of bytes; UTF-8 byte order equals code point order.
        TreeMap<String, String> sorted = new TreeMap<>(Fingerprint::compareUtf8);
        sorted.putAll(labelSet);
        long h = OFFSET;
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            h = add(h, e.getKey());
            h = (h ^ SEPARATOR) * PRIME;
            h = add(h, e.getValue());
            h = (h ^ SEPARATOR) * PRIME;
        }
        return String.format("%016x", h);
    }

    private static long add(long h, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * PRIME;
        }
        return h;
    }

    private static int compareUtf8(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
