package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentStatusTest {
    @Test
    void recent_failures_are_the_failed_last_probes_per_engine() throws Exception {
        String status = """
                {"engines": [
                  {"name": "mlx", "scenarios": [
                    {"name": "interactive", "last": {"success": false, "error_type": "http_500"}},
                    {"name": "long", "last": {"success": false, "error_type": "http_500"}}]},
                  {"name": "ollama", "scenarios": [
                    {"name": "interactive", "last": {"success": true, "error_type": null}}]},
                  {"name": "idle", "scenarios": [{"name": "interactive", "last": null}]}]}
                """;
        assertThat(AgentStatus.recentFailures(new ObjectMapper().readTree(status)))
                .isEqualTo(Map.of("mlx", List.of("http_500", "http_500")));
    }

    @Test
    void signals_come_from_alerts_signals_and_absent_parts_are_empty() throws Exception {
        ObjectMapper m = new ObjectMapper();
        assertThat(AgentStatus.signals(m.readTree("{\"alerts\": {}}"))).isSameAs(io.tailwatch.core.rules.Signals.EMPTY);
        io.tailwatch.core.rules.Signals s = AgentStatus.signals(m.readTree("{\"alerts\": {\"signals\": {}}}"));
        assertThat(s.host()).isEqualTo(io.tailwatch.core.rules.Signals.EMPTY.host());
        assertThat(s.engines()).isEmpty();
        assertThat(s.windows()).isEmpty();
    }
}
