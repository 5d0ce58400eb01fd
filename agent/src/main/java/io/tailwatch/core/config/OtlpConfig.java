package io.tailwatch.core.config;

import io.tailwatch.metrics.OtlpSettings;
import java.time.Duration;
import java.util.Map;

/** OTLP push; the standard OTEL_* variables override these values. Header values are secrets. */
public record OtlpConfig(boolean enabled, String endpoint, String protocol, Duration interval, Map<String, String> headers) {
    static OtlpConfig read(Section s) {
        boolean enabled = s.bool("enabled", false);
        String endpoint = s.string("endpoint", "http://127.0.0.1:4318");
        String protocol = s.oneOf("protocol", "http/protobuf", "http/protobuf", "grpc");
        Duration interval = s.duration("interval", Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1));
        Map<String, String> headers = headers(s.section("headers"));
        s.finish();
        return new OtlpConfig(enabled, endpoint, protocol, interval, headers);
    }

    private static final java.util.regex.Pattern TOKEN = java.util.regex.Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /**
     * Header values go to the collector exactly as written (no URL decoding, commas allowed); a name
     * that is not an HTTP token or a value with a control character could not be sent, so it is a
     * problem here rather than a failure when the exporter starts.
     */
    private static Map<String, String> headers(Section h) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        for (String k : h.keys()) {
            String v = h.string(k, "");
            if (!TOKEN.matcher(k).matches()) {
                h.problem(k, "not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~-)");
                continue;
            }
            if (v != null && v.chars().anyMatch(c -> (c < 0x20 && c != '\t') || c == 0x7f)) {
                h.problem(k, "the value contains a control character (a line break?), which HTTP headers cannot carry");
                continue;
            }
            out.put(k, v == null ? "" : v);
        }
        h.finish();
        return out;
    }

    public OtlpSettings settings() {
        return new OtlpSettings(enabled, endpoint, protocol, interval, headers);
    }

    @Override
    public String toString() {
        return "OtlpConfig[enabled=" + enabled + ", endpoint=" + endpoint + ", protocol=" + protocol
                + ", interval=" + interval + ", headers=" + headers.keySet() + "]";
    }
}
