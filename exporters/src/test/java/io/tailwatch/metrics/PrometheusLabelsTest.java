package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Gauges and counters carry only the labels a series has; no label="" in the exposition. */
class PrometheusLabelsTest {
    @Test
    void hostAlertsHaveNoEmptyEngineOrScenarioLabels() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of());
        hub.publish("rules", List.of(
                Point.of(AlertMetrics.ALERT_ACTIVE, 1, AttrKeys.ALERT_NAME, "SwapUsedHigh", AttrKeys.ALERT_SEVERITY, "warning"),
                Point.of(AlertMetrics.ALERT_ACTIVE, 0, AttrKeys.ALERT_NAME, "ProbeErrors", AttrKeys.ALERT_SEVERITY, "warning",
                        AttrKeys.ENGINE, "mlx", AttrKeys.SCENARIO, "interactive")));
        String text = prom.scrape("text/plain");
        assertThat(text).contains("tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\",tailwatch_alert_severity=\"warning\"} 1.0")
                .contains("tailwatch_alert_active{tailwatch_alert_name=\"ProbeErrors\",tailwatch_alert_severity=\"warning\",tailwatch_engine_name=\"mlx\",tailwatch_scenario=\"interactive\"} 0.0")
                .doesNotContain("=\"\"");
    }

    @Test
    void pagingOperationsAreACounterByDirection() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of());
        hub.publish("host", List.of(Point.of(HostMetrics.PAGING_OPERATIONS, 12, "system.paging.direction", "in"),
                Point.of(HostMetrics.PAGING_OPERATIONS, 34, "system.paging.direction", "out")));
        assertThat(prom.scrape("text/plain")).contains("# TYPE system_paging_operations_total counter")
                .contains("system_paging_operations_total{system_paging_direction=\"in\"} 12.0")
                .contains("system_paging_operations_total{system_paging_direction=\"out\"} 34.0");
    }
}
