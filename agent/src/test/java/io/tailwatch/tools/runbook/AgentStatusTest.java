package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.json.JsonTree;
import io.tailwatch.core.rules.Signals;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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

    /**
     * Every component of every signals record filled with a value of its own (numbers, text, booleans,
     * two-element lists, nested records), so a component added to a record and not read by the
     * runbook's own reader makes the two readers differ.
     */
    private int next;

    private Object filled(Type t) throws Exception {
        if (t instanceof ParameterizedType p && p.getRawType() == List.class) {
            Type e = p.getActualTypeArguments()[0];
            return List.of(filled(e), filled(e));
        }
        Class<?> c = (Class<?>) t;
        next++;
        if (c == Double.class) {
            return next + 0.25;
        }
        if (c == String.class) {
            return "s" + next;
        }
        if (c == Boolean.class) {
            return next % 2 == 0;
        }
        if (c.isRecord()) {
            RecordComponent[] rc = c.getRecordComponents();
            Object[] values = new Object[rc.length];
            Class<?>[] types = new Class<?>[rc.length];
            for (int i = 0; i < rc.length; i++) {
                values[i] = filled(rc[i].getGenericType());
                types[i] = rc[i].getType();
            }
            return c.getDeclaredConstructor(types).newInstance(values);
        }
        throw new AssertionError("no filler for " + c);
    }

    private static JsonNode status(String signals) throws Exception {
        return JsonTree.read(("{\"alerts\": {\"signals\": " + signals + "}}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void the_runbook_reader_reads_every_signal_as_data_binding_does() throws Exception {
        Signals full = (Signals) filled(Signals.class);
        assertThat(full.windows().get(0).interactive()).isNotNull();
        assertThat(full.engines().get(1).queue().waitSource()).isNotNull();
        JsonNode tree = JsonTree.read(Json.MAPPER.writeValueAsBytes(full));
        assertThat(AgentStatus.read(tree)).isEqualTo(full).isEqualTo(Json.MAPPER.treeToValue(tree, Signals.class));
        assertThat(AgentStatus.signals(status(Json.MAPPER.writeValueAsString(full)))).isEqualTo(full);

        // Null and absent values, unknown names, integers and huge numbers, empty lists.
        String sparse = """
                {"host": {"swap_used_bytes": 0, "memory_total_bytes": 68719476736, "thermal_pressure_level": null,
                          "cpu_speed_limit": 1e2, "future_figure": [1, {"x": 2}]},
                 "engines": [{"engine": "mlx", "up": 1, "models": [], "queue": null, "extra": "ignored"},
                             {"engine": "ollama", "models": [{"model": "m", "context_length": 123456789012345678901234567890}],
                              "queue": {"running": 2, "wait_source": "estimate"}}],
                 "windows": [{"engine": "mlx", "interactive": false, "samples": 12}], "other": {}}
                """;
        JsonNode t = status(sparse).path("alerts").path("signals");
        Signals expected = Json.MAPPER.treeToValue(t, Signals.class);
        assertThat(AgentStatus.read(t)).isEqualTo(expected);
        assertThat(expected.host().swapUsedBytes()).isEqualTo(0.0);
        assertThat(expected.engines().get(0).queue()).isNull();
        for (String empty : List.of("{}", "{\"host\": null, \"engines\": null, \"windows\": null}")) {
            JsonNode e = status(empty).path("alerts").path("signals");
            assertThat(AgentStatus.read(e)).as(empty).isEqualTo(Json.MAPPER.treeToValue(e, Signals.class));
        }
    }

    @Test
    void shapes_the_runbook_reader_does_not_map_are_read_by_data_binding() throws Exception {
        // Numbers as text (NaN, as the agent's JSON writes it), a null in a list, a number for a name, a
        // boolean as text: data binding's coercions decide, the result is the same as before.
        List<String> coerced = List.of(
                "{\"host\": {\"swap_used_bytes\": \"NaN\", \"memory_pressure_level\": \"1.5\"}}",
                "{\"engines\": [null]}",
                "{\"engines\": [{\"engine\": 7}]}",
                "{\"windows\": [{\"interactive\": \"true\"}]}");
        for (String doc : coerced) {
            JsonNode t = status(doc).path("alerts").path("signals");
            assertThat(catchUnusual(t)).as(doc).isTrue();
            Signals viaBinding = Json.MAPPER.treeToValue(t, Signals.class);
            Signals s = AgentStatus.signals(status(doc));
            assertThat(s.engines()).isEqualTo(viaBinding.engines() == null ? List.of() : viaBinding.engines());
            assertThat(s.windows()).isEqualTo(viaBinding.windows() == null ? List.of() : viaBinding.windows());
        }
        assertThat(AgentStatus.signals(status(coerced.get(0))).host().swapUsedBytes()).isNaN();
        assertThat(AgentStatus.signals(status(coerced.get(0))).host().memoryPressureLevel()).isEqualTo(1.5);

        // Shapes data binding refuses: the same error as before.
        for (String doc : List.of("{\"engines\": {\"engine\": \"mlx\"}}", "{\"host\": [1]}", "[1]",
                "{\"windows\": [{\"samples\": {\"n\": 1}}]}")) {
            JsonNode t = status(doc).path("alerts").path("signals");
            Exception expected = null;
            try {
                Json.MAPPER.treeToValue(t, Signals.class);
            } catch (Exception e) {
                expected = e;
            }
            assertThat(expected).as(doc).isNotNull();
            String message = expected.getMessage();
            Class<?> type = expected.getClass();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> AgentStatus.signals(status(doc))).as(doc)
                    .isInstanceOf(type).hasMessage(message);
        }
    }

    private static boolean catchUnusual(JsonNode t) {
        try {
            AgentStatus.read(t);
            return false;
        } catch (AgentStatus.Unusual e) {
            return true;
        }
    }
}
