package io.tailwatch.metrics;

import java.time.Duration;
import java.util.Map;

/** OTLP settings from the agent's config; the standard OTEL_* environment variables override them. */
public record OtlpSettings(boolean enabled, String endpoint, String protocol, Duration interval,
                           Map<String, String> headers) {
    public OtlpSettings {
        headers = Map.copyOf(headers);
    }
}
