package io.tailwatch.daemon.alerts;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Severity;
import java.time.Instant;
import java.util.Map;

/**
 * One alert instance as GET /api/v1/alerts shows it. {@code since} is when it entered its current
 * state; {@code activeAt} when its condition first held; {@code evidence} was gathered when it fired.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Alert(String name, AlertState state, Severity severity, Instant since, Instant activeAt, Instant firedAt,
                    Instant resolvedAt, double value, String valueText, Double threshold, String thresholdText,
                    Map<String, String> labels, Map<String, Object> evidence, String summary, String description,
                    String runbook) {

    /** Stable identity of an alert instance: Alertmanager's fingerprint of its name, severity and labels. */
    @JsonIgnore
    public String fingerprint() {
        return Fingerprint.of(name, severity.label(), labels);
    }
}
