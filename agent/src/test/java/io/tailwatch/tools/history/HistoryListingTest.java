package io.tailwatch.tools.history;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistoryListingTest {
    static final Instant T0 = Instant.parse("2026-11-29T08:00:00.123Z");

    @Test
    void table_has_a_header_and_one_line_per_run() {
        String t = HistoryListing.table(List.of(
                new RunRecord(7, "ladder", T0, null, "studio-1", "mlx", "gemma", 3.671, "s", "p95_ratio at 2", "{}"),
                new RunRecord(8, "bench", T0, null, "studio-1", "ollama", "qwen", null, "tok/s", null, "{}")));
        String[] lines = t.split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("id     kind").contains("headline").endsWith("outcome");
        assertThat(lines[1]).startsWith("7      ladder").contains("2026-11-29 08:00:00Z").contains("3.67 s")
                .endsWith("p95_ratio at 2");
        assertThat(lines[2]).startsWith("8      bench").contains("n/a");
    }

    @Test
    void columns_line_up_by_display_width_with_wide_model_names() {
        List<String> models = List.of("通义千问-72B", "🦙🦙 llama3", "qwe\u0301n-7b", "qwen-7b");
        List<RunRecord> runs = new java.util.ArrayList<>();
        for (int i = 0; i < models.size(); i++) {
            runs.add(new RunRecord(i + 1, "bench", T0, null, "主机", "mlx", models.get(i), 41.5, "tok/s", "stable", "{}"));
        }
        String[] lines = HistoryListing.table(runs).split("\n");
        assertThat(lines).hasSize(5);
        for (int i = 1; i < lines.length; i++) {
            String l = lines[i];
            // id 6, kind 8, start 20, host 16, engine 14, model 28 (one space after each), then the headline in 12.
            assertThat(io.tailwatch.core.text.Columns.width(l.substring(0, l.indexOf(" 41.50 tok/s") + 12)))
                    .as(l).isEqualTo(7 + 9 + 21 + 17 + 15 + 29 + 12);
            assertThat(io.tailwatch.core.text.Columns.width(l.substring(0, l.indexOf("mlx")))).as(l)
                    .isEqualTo(7 + 9 + 21 + 17);
        }
    }

    @Test
    void json_keeps_a_summary_that_is_not_json_as_text() throws Exception {
        JsonNode arr = Json.MAPPER.readTree(HistoryListing.json(List.of(
                new RunRecord(1, "bench", T0, T0.plusSeconds(5), "h", "e", "m", 41.5, "tok/s", "stable", "{\"a\":1}"),
                new RunRecord(2, "bench", T0, null, "h", "e", "m", null, "tok/s", "stable", "not json"))));
        assertThat(arr).hasSize(2);
        assertThat(arr.get(0).get("summary").get("a").asInt()).isEqualTo(1);
        assertThat(arr.get(0).get("ended_at").asText()).isEqualTo("2026-11-29T08:00:05.123Z");
        assertThat(arr.get(0).get("headline").asDouble()).isEqualTo(41.5);
        assertThat(arr.get(1).get("summary").asText()).isEqualTo("not json");
        assertThat(arr.get(1).get("headline").isNull()).isTrue();
        assertThat(arr.get(1).get("ended_at").isNull()).isTrue();
    }
}
