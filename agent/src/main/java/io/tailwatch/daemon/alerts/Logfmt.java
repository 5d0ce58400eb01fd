package io.tailwatch.daemon.alerts;

/** logfmt key=value pairs; values with spaces, quotes or '=' are quoted. */
final class Logfmt {
    private Logfmt() {
    }

    static void pair(StringBuilder b, String key, String value) {
        b.append(' ').append(key.replaceAll("[^A-Za-z0-9_.]", "_")).append('=');
        String v = value == null ? "" : value;
        if (v.isEmpty() || v.chars().anyMatch(c -> c <= ' ' || c == '"' || c == '=' || c == '\\')) {
            b.append('"').append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"');
        } else {
            b.append(v);
        }
    }
}
