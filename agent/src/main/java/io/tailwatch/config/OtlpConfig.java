package io.tailwatch.config;

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
        Map<String, String> headers = s.stringMap("headers");
        s.finish();
        return new OtlpConfig(enabled, endpoint, protocol, interval, headers);
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
