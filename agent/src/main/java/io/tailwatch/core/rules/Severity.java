package io.tailwatch.core.rules;

import com.fasterxml.jackson.annotation.JsonValue;
import io.tailwatch.metrics.AttrValues.AlertSeverity;

/** Rule severity, worst last; the label value is the lower-case name, as the catalog declares it. */
public enum Severity {
    INFO(AlertSeverity.INFO), WARNING(AlertSeverity.WARNING), CRITICAL(AlertSeverity.CRITICAL);

    private final AlertSeverity attr;

    Severity(AlertSeverity attr) {
        this.attr = attr;
    }

    /** The {@code tailwatch.alert.severity} value of this severity. */
    public AlertSeverity attr() {
        return attr;
    }

    @JsonValue
    public String label() {
        return attr.value();
    }
}
