package io.tailwatch.daemon.alerts;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/** Alertmanager-style fingerprint: 16 hex digits of a hash over the alert name and sorted labels. */
final class Fingerprint {
    private Fingerprint() {
    }

    static String of(String name, Map<String, String> labels) {
        StringBuilder b = new StringBuilder("alertname\u0000").append(name);
        for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
            b.append('\u0001').append(e.getKey()).append('\u0000').append(e.getValue());
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
