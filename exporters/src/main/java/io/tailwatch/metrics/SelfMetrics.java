package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import io.tailwatch.metrics.AttrValues.AuthFailureReason;
import io.tailwatch.metrics.AttrValues.WebhookOutcome;
import java.util.List;

/** The agent's view of its own health. */
public final class SelfMetrics {
    private SelfMetrics() {
    }

    public static final MetricDef SAMPLER_SUCCESS = MetricDef.gauge("tailwatch.sampler.success", "{bool}",
            "1 when the sampler's last run succeeded, 0 when it failed.",
            free(AttrKeys.SAMPLER, "Sampler name"));

    public static final MetricDef SAMPLER_DURATION = MetricDef.gauge("tailwatch.sampler.duration", "s",
            "Wall time of the sampler's last run.",
            free(AttrKeys.SAMPLER, "Sampler name"));

    public static final MetricDef SAMPLER_STUCK = MetricDef.gauge("tailwatch.sampler.stuck", "{bool}",
            "1 while the sampler's last read has not returned past its deadline (a hung mount, a blocking file); "
                    + "no new read of it starts until that one returns.",
            free(AttrKeys.SAMPLER, "Sampler name"));

    public static final MetricDef SAMPLER_STATE = MetricDef.gauge("tailwatch.sampler.state", "{bool}",
            "Always 1, one series per sampler: running, or the reason it is not run (its native probe crashed or "
                    + "timed out the self-check's child process on this OS build; docs/macos.md, \"Native self-check\").",
            free(AttrKeys.SAMPLER, "Sampler name"),
            oneOf(AttrKeys.SAMPLER_STATUS, "Running, or why the sampler is not run", AttrValues.SamplerState.class));

    public static final MetricDef OTLP_EXPORT_FAILURES = MetricDef.counter("tailwatch.otlp.export.failures", "{export}",
            "OTLP metric exports that failed after the exporter's own retries.");

    public static final MetricDef WEBHOOK_NOTIFICATIONS = MetricDef.counter("tailwatch.webhook.notifications", "{notification}",
            "Alert notifications handled by the webhook sink since the agent started, by outcome: sent, failed (gave up after its attempts or a non-retryable answer), dropped (queue full or shut down), suppressed (cooldown). Absent when no webhook is configured.",
            oneOf(AttrKeys.WEBHOOK_OUTCOME, "What became of the notification", WebhookOutcome.class));

    public static final MetricDef SERIES_DROPPED = MetricDef.counter("tailwatch.series.dropped", "{series}",
            "Series dropped because a metric reached its series bound.");

    public static final MetricDef READINGS_DROPPED = MetricDef.counter("tailwatch.sampler.readings.dropped", "{reading}",
            "Readings a sampler dropped as impossible (above its sanity bound, or a counter that went backwards).",
            free(AttrKeys.SAMPLER, "Sampler name"));

    public static final MetricDef INPUT_REJECTED = MetricDef.counter("tailwatch.input.rejected", "{value}",
            "Numbers from outside (engine answers, token counts, engine figures) dropped where they entered as out of "
                    + "their range: negative, non-finite, or larger than the field can hold. A dropped value is never "
                    + "exported nor fed to a counter, a rate or a rule; each source and field is logged once.",
            free(AttrKeys.INPUT_SOURCE, "Where the value came from"),
            free(AttrKeys.INPUT_FIELD, "The field that carried it"));

    public static final MetricDef HTTP_AUTH_FAILURES = MetricDef.counter("tailwatch.http.auth.failures", "{request}",
            "Requests refused by basic authentication (web config basic_auth_users), by reason: no credentials, "
                    + "a malformed Authorization header, an unknown user, or a wrong password.",
            oneOf(AttrKeys.AUTH_FAILURE_REASON, "Why the request was refused", AuthFailureReason.class));

    public static final MetricDef BUILD_INFO = MetricDef.gauge("tailwatch.build.info", "{info}",
            "Always 1; carries the agent's version and the Java runtime it runs on.",
            free(AttrKeys.BUILD_VERSION, "tailwatch version"),
            free(AttrKeys.RUNTIME_NAME, "Java runtime name (semconv)"),
            free(AttrKeys.RUNTIME_VERSION, "Java runtime version (semconv)"));

    public static final List<MetricDef> ALL = List.of(BUILD_INFO, SAMPLER_SUCCESS, SAMPLER_DURATION, SAMPLER_STUCK, SAMPLER_STATE, OTLP_EXPORT_FAILURES,
            WEBHOOK_NOTIFICATIONS, SERIES_DROPPED, READINGS_DROPPED, INPUT_REJECTED, HTTP_AUTH_FAILURES);

    /** The build-info point of this process. */
    public static Point buildInfo(String version) {
        return Point.of(BUILD_INFO, 1, AttrKeys.BUILD_VERSION, version,
                AttrKeys.RUNTIME_NAME, System.getProperty("java.runtime.name", "unknown"),
                AttrKeys.RUNTIME_VERSION, System.getProperty("java.runtime.version", "unknown"));
    }
}
