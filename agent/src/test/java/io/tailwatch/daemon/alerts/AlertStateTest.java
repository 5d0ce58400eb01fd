package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.AlertState;
import io.tailwatch.core.rules.Severity;
import io.tailwatch.metrics.AttrValues.AlertSeverity;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Alert states and severities are enums inside; the API, the webhook and the metric labels see lower-case words. */
class AlertStateTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void labelsAreTheLowerCaseWords() {
        assertThat(Arrays.stream(AlertState.values()).map(AlertState::label))
                .containsExactly("pending", "firing", "resolved", "inactive");
        assertThat(AlertState.of("firing")).isSameAs(AlertState.FIRING);
        assertThat(AlertState.of("FIRING")).isNull();
        assertThat(Arrays.stream(Severity.values()).map(Severity::label)).containsExactly("info", "warning", "critical");
    }

    @Test
    void everySeverityIsTheCatalogsSeverityOfTheSameName() {
        assertThat(Severity.values()).hasSameSizeAs(AlertSeverity.values());
        for (Severity s : Severity.values()) {
            assertThat(s.attr().name()).isEqualTo(s.name());
            assertThat(s.attr().value()).isEqualTo(s.label());
        }
    }

    @Test
    void theApiJsonCarriesLowerCaseStateAndSeverity() throws Exception {
        Alert a = new Alert("EngineDown", AlertState.FIRING, Severity.CRITICAL, T0, T0, T0, null, 0, "0", null, null,
                Map.of("tailwatch_engine_name", "mlx"), Map.of(), "Engine mlx is down", "desc", "docs/runbook.md#EngineDown");
        JsonNode n = Json.MAPPER.readTree(Json.write(a));
        assertThat(n.path("state").isTextual()).isTrue();
        assertThat(n.path("state").asText()).isEqualTo("firing");
        assertThat(n.path("severity").asText()).isEqualTo("critical");
        assertThat(Json.write(a)).contains("\"state\" : \"firing\",\n  \"severity\" : \"critical\",");
    }

    @Test
    void onlyFiringAndResolvedAfterFiringAreNotified() {
        Alert a = new Alert("EngineDown", AlertState.RESOLVED, Severity.CRITICAL, T0, T0, T0, T0, 0, "0", null, null,
                Map.of(), Map.of(), "s", "d", "r");
        assertThat(new Transition(AlertState.PENDING, AlertState.FIRING, a).notifiable()).isTrue();
        assertThat(new Transition(AlertState.INACTIVE, AlertState.FIRING, a).notifiable()).isTrue();
        assertThat(new Transition(AlertState.FIRING, AlertState.RESOLVED, a).notifiable()).isTrue();
        assertThat(new Transition(AlertState.INACTIVE, AlertState.PENDING, a).notifiable()).isFalse();
        assertThat(new Transition(AlertState.PENDING, AlertState.INACTIVE, a).notifiable()).isFalse();
    }
}
