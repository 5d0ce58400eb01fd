package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;
import static io.tailwatch.metrics.AttributeDef.optional;

import io.tailwatch.metrics.AttrValues.AlertSeverity;
import java.util.List;

/** Alert rule state and the persisted single-request baseline the rules compare against. */
public final class AlertMetrics {
    private AlertMetrics() {
    }

    public static final MetricDef ALERT_ACTIVE = MetricDef.gauge("tailwatch.alert.active", "{bool}",
            "1 while an alert is firing, 0 while pending.",
            free(AttrKeys.ALERT_NAME, "Rule name"), oneOf(AttrKeys.ALERT_SEVERITY, "Rule severity", AlertSeverity.class),
            optional(AttrKeys.ENGINE, "Engine the alert is about (absent on host alerts)"),
            optional(AttrKeys.SCENARIO, "Scenario the alert is about (absent unless the alert is about a probe scenario)"));

    public static final MetricDef BASELINE_E2E_P95 = MetricDef.gauge("tailwatch.baseline.e2e.p95", "s",
            "Single-request (concurrency 1) p95 end-to-end latency, measured by the ladder or idle-time probes and persisted.",
            free(AttrKeys.ENGINE, "Configured engine name"), free(AttrKeys.MODEL, "Model probed"),
            free(AttrKeys.SCENARIO, "Probe scenario name"));

    public static final List<MetricDef> ALL = List.of(ALERT_ACTIVE, BASELINE_E2E_P95);
}
