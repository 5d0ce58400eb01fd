package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.Signals;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A llama.cpp engine names its model by the file's whole path: the screen stays readable. */
class StatusScreenLabelsTest {
    static final String PATH = "/home/someone/.cache/tailwatch/real-engine/models/generated-by-the-test-setup/"
            + "tiny-random-llama-two-layers-f32.gguf";

    @Test
    void windowsShowTheModelsFileNameAndAlertLabelsBreakOnlyBetweenLabelsOrAfterASlash() throws Exception {
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\",\"time\":\"2026-01-01T00:10:00Z\"}");
        JsonNode alerts = Json.MAPPER.readTree("""
                {"alerts":[{"name":"ProbeErrors","state":"firing","severity":"warning","since":"2026-01-01T00:00:00Z",
                  "value_text":"100%%","labels":{"engine":"llamacpp-8080","model":"%s","scenario":"interactive"},
                  "summary":"Probes fail","runbook":"docs/runbook.md#ProbeErrors"}]}
                """.formatted(PATH));
        Signals s = new Signals(Signals.EMPTY.host(), List.of(),
                List.of(new Signals.Window("llamacpp-8080", PATH, "interactive", 1.0, 1.1, 1.2, 0.1, 0.2, 0.3, 0.0, 30.0,
                        1.0, 30.0, true)));
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts, s);
        assertThat(out).contains("llamacpp-8080/tiny-random-llama-two-layers-f32.gguf/interactive");
        String windows = out.substring(out.indexOf("WINDOWS"));
        assertThat(windows).doesNotContain("/home/someone");
        List<String> alertLines = out.substring(out.indexOf("ALERTS"), out.indexOf("HOST")).lines().toList();
        assertThat(alertLines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(StatusScreen.WIDTH));
        // Every part of the path, and every other label, stays whole on one line.
        for (String part : ("engine=llamacpp-8080 scenario=interactive model=" + PATH).split("[ /]")) {
            if (!part.isEmpty()) {
                assertThat(alertLines).as(part).anySatisfy(l -> assertThat(l).contains(part));
            }
        }
        String joined = String.join("", alertLines.stream().map(String::strip).toList());
        assertThat(joined).contains("model=" + PATH);
    }

    @Test
    void laneNamesInWideCharactersKeepTheLanesColumnsAligned() {
        // "対話" takes 4 columns in 2 chars: the requests column starts at the same column on both rows.
        String out = StatusScreen.lanes(List.of(
                new Signals.Lane("mlx", "対話", 40.0, 1.0, 0.9, 0.3, 0.5, 1.0, 2.0, 0.01, 0.5),
                new Signals.Lane("mlx", "batch", 12.0, null, null, 2.0, null, 9.0, null, 3.0, 1.5)));
        List<String> rows = out.lines().filter(l -> l.startsWith("  mlx/")).toList();
        assertThat(rows).hasSize(2);
        assertThat(io.tailwatch.core.text.Columns.width(rows.get(0).substring(0, rows.get(0).indexOf(" 40 ")))).as(out)
                .isEqualTo(2 + 32);
        assertThat(io.tailwatch.core.text.Columns.width(rows.get(1).substring(0, rows.get(1).indexOf(" 12 ")))).as(out)
                .isEqualTo(2 + 32);
    }
}
