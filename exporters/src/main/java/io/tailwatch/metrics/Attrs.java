package io.tailwatch.metrics;

import java.util.Map;
import java.util.TreeMap;

/** Small helper to build attribute maps from key/value pairs. */
public final class Attrs {
    private Attrs() {
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
