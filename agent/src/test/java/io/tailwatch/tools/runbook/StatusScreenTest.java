package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.Signals;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusScreenTest {
    private static final double GIB = 1L << 30;

    @Test
    void worstFirstEverywhereAndUnknownIsSaid() throws Exception {
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\",\"time\":\"2026-01-01T00:00:00Z\"}");
        JsonNode alerts = Json.MAPPER.readTree("""
                {"alerts":[
                  {"name":"EngineDown","state":"firing","severity":"critical","since":"2026-01-01T00:00:00Z","value_text":"0",
                   "labels":{"engine":"ollama","job":"x"},"summary":"Engine ollama is down","runbook":"docs/runbook.md#EngineDown"},
                  {"name":"SwapUsedHigh","state":"pending","severity":"warning","since":"2026-01-01T00:00:00Z","value_text":"2.00 GiB",
                   "labels":{},"summary":"Swap in use above 1.00 GiB","runbook":"docs/runbook.md#SwapUsedHigh"}]}
                """);
        Signals s = new Signals(new Signals.Host(2 * GIB, 0.5 * GIB, 1.0, 8 * GIB, 64 * GIB, null, 0.9),
                List.of(new Signals.Engine("mlx", 1.0, 0.0, 12 * GIB, null, List.of(), null),
                        new Signals.Engine("ollama", 0.0, 0.0, null, null, List.of(), null)),
                List.of(new Signals.Window("mlx", "q", "calm", 1.0, 1.1, 1.2, 0.1, 0.2, 0.3, 0.0, 30.0, 1.0, 30.0, true),
                        new Signals.Window("mlx", "q", "slow", 10.0, 12.0, 13.0, 0.1, 0.2, 0.3, 0.0, 30.0, 3.0, 30.0, true)));
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts, s);
        assertThat(out).contains("ALERTS  1 firing, 1 pending", "engine=ollama", "swap 2.00 GiB used (+512.00 MiB in 10m)",
                "memory pressure warning(1)", "thermal unknown", "cpu limit 90%").doesNotContain("job=x");
        assertThat(out.indexOf("EngineDown")).isLessThan(out.indexOf("SwapUsedHigh"));
        assertThat(out).contains("since 0s ago").doesNotContain("since 2026-01-01T00:00:00Z");
        String alertSection = out.substring(out.indexOf("ALERTS"), out.indexOf("HOST"));
        assertThat(alertSection.lines()).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(100));
        assertThat(out.indexOf("ollama           DOWN")).as("down engines first").isLessThan(out.indexOf("mlx              up"));
        assertThat(out.indexOf("mlx/q/slow")).as("the window 4x over its baseline first").isLessThan(out.indexOf("mlx/q/calm"));
    }

    @Test
    void columnsLineUpByDisplayWidthWithWideModelNames() throws Exception {
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\",\"time\":\"2026-01-01T00:00:00Z\"}");
        JsonNode alerts = Json.MAPPER.readTree("{\"alerts\":[]}");
        // CJK, an emoji (two chars, two columns), a combining accent (two chars, one column), plain ASCII.
        List<String> models = List.of("通义千问", "🦙llama", "qwe\u0301n", "qwen");
        List<Signals.Window> windows = new java.util.ArrayList<>();
        List<Signals.Engine> engines = new java.util.ArrayList<>();
        for (String m : models) {
            windows.add(new Signals.Window("mlx", m, "chat", 1.0, 1.1, 1.2, 0.1, 0.2, 0.3, 0.0, 30.0, 1.0, 30.0, true));
        }
        engines.add(new Signals.Engine("引擎", 1.0, 0.0, 12 * GIB, null, List.of(), null));
        engines.add(new Signals.Engine("mlx", 1.0, 0.0, 12 * GIB, null, List.of(), null));
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts,
                new Signals(Signals.EMPTY.host(), engines, windows));
        List<String> rows = out.lines().filter(l -> l.contains("/chat")).toList();
        assertThat(rows).hasSize(4);
        // The e2e column starts at column 35 (2 + 32 + 1) on every row, counted in terminal columns.
        for (String r : rows) {
            assertThat(io.tailwatch.core.text.Columns.width(r.substring(0, r.indexOf("1.00 s/"))))
                    .as(r).isEqualTo(35);
        }
        List<String> engineRows = out.lines().filter(l -> l.contains(" up ") || l.endsWith(" up")).toList();
        assertThat(engineRows).hasSize(2);
        for (String r : engineRows) {
            assertThat(io.tailwatch.core.text.Columns.width(r.substring(0, r.indexOf("up")))).as(r).isEqualTo(19);
        }
    }

    @Test
    void timesReadAsPeopleReadThem() {
        assertThat(StatusScreen.ago("2026-01-01T00:00:00Z", "2026-01-01T00:03:10Z")).isEqualTo("3m ago");
        assertThat(StatusScreen.ago("2026-01-01T00:00:00Z", "2026-01-01T02:05:00Z")).isEqualTo("2h 5m ago");
        assertThat(StatusScreen.ago("2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z")).isEqualTo("2d ago");
        assertThat(StatusScreen.ago("not a time", "2026-01-01T00:00:00Z")).isEqualTo("not a time");
        assertThat(StatusScreen.localTime("2026-01-01T00:00:00Z")).matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} .+");
    }

    @Test
    void engineQueueFiguresShownWhenPresentAndEstimateSaidSo() throws Exception {
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\"}");
        JsonNode alerts = Json.MAPPER.readTree("{\"alerts\":[]}");
        Signals s = new Signals(Signals.EMPTY.host(),
                List.of(new Signals.Engine("vllm", 1.0, 0.0, null, null, List.of(), new Signals.Queue(4.0, 2.0, 0.73, 1.5, "measured")),
                        new Signals.Engine("mlxlm", 1.0, 0.0, null, null, List.of(), new Signals.Queue(null, null, null, 0.25, "estimate")),
                        new Signals.Engine("ollama", 1.0, 0.0, null, null, List.of(), null)),
                List.of());
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts, s);
        String vllm = line(out, "  vllm ");
        String mlxlm = line(out, "  mlxlm ");
        String ollama = line(out, "  ollama ");
        assertThat(vllm).contains("queue 2 waiting, 4 running, KV cache 73%, wait 1.50 s").doesNotContain("estimate");
        assertThat(mlxlm).contains("queue wait 250 ms (estimate)").doesNotContain("waiting").doesNotContain("KV");
        assertThat(ollama).as("unknown queue figures are left out, not shown as 0").doesNotContain("queue");
    }

    @Test
    void longNamesWrapWithinOneHundredColumnsAndKeepEveryLabel() throws Exception {
        String engine = "vllm-metal-experimental-build";
        String model = "mlx-community/Meta-Llama-3.1-70B-Instruct-4bit-with-a-very-long-quantisation-suffix";
        String model2 = "another-model-name-that-takes-the-rest-of-the-line-Qwen2.5-Coder-32B-Instruct";
        String scenario = "long-context-summarisation-of-a-sixty-page-document";
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\",\"time\":\"2026-01-01T00:10:00Z\"}");
        JsonNode alerts = Json.MAPPER.readTree("""
                {"alerts":[
                  {"name":"ProbeLatencyOverBaseline","state":"firing","severity":"warning","since":"2026-01-01T00:00:00Z",
                   "value_text":"4.2x over the baseline p95","labels":{"engine":"%s","model":"%s","scenario":"%s"},
                   "summary":"End-to-end p95 for %s on %s is over four times its baseline of the last week",
                   "runbook":"docs/runbook.md#ProbeLatencyOverBaseline"}]}
                """.formatted(engine, model, scenario, model, engine));
        Signals s = new Signals(new Signals.Host(2 * GIB, 0.5 * GIB, 1.0, 8 * GIB, 64 * GIB, 1.0, 0.9),
                List.of(new Signals.Engine(engine, 1.0, 0.0, 40 * GIB, null,
                        List.of(new Signals.Model(model, 131072.0, 64000.0), new Signals.Model(model2, 32768.0, 1000.0)),
                        new Signals.Queue(4.0, 2.0, 0.73, 1.5, "measured"))),
                List.of(new Signals.Window(engine, model, scenario, 1.0, 1.1, 1.2, 0.1, 0.2, 0.3, 0.0, 30.0, 1.0, 30.0, true)));
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts, s);
        assertThat(out.lines()).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(StatusScreen.WIDTH));
        assertThat(out).contains(engine, model, model2, scenario, "kv headroom 64000 tok, context 131072)",
                "queue 2 waiting, 4 running, KV cache 73%, wait 1.50 s", "footprint 40.00 GiB", "thermal moderate(1)",
                "cpu limit 90%", "engine=" + engine, "model=" + model, "scenario=" + scenario, "since 10m ago",
                "-> docs/runbook.md#ProbeLatencyOverBaseline", "1.00 s/1.10 s/1.20 s", "baseline p95")
                .doesNotContain("~");
        assertThat(out.replace("\n", " ").replaceAll(" +", " "))
                .contains("End-to-end p95 for " + model + " on " + engine + " is over four times its baseline of the last week");
        // The window's figures follow its full name, on the next line.
        List<String> lines = out.lines().toList();
        int name = lines.indexOf(lines.stream().filter(l -> l.contains(scenario) && !l.contains("=")).findFirst().orElseThrow());
        assertThat(lines.get(name + 1)).contains("1.00 s/1.10 s/1.20 s");
    }

    @Test
    void theGpuLimitStandsBesideMemoryAndEachModelShowsItsShare() throws Exception {
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\",\"time\":\"2026-01-01T00:10:00Z\"}");
        JsonNode alerts = Json.MAPPER.readTree("{\"alerts\":[]}");
        // 128 GiB M5 Max: limit 107.52 GiB, 96.768 GiB in use = 90%; the model's share 0.93
        Signals s = new Signals(new Signals.Host(0.0, 0.0, 0.0, 20 * GIB, 128 * GIB, 0.0, 1.0, 107.52 * GIB, 96.768 * GIB),
                List.of(new Signals.Engine("mlx", 1.0, 0.0, 100 * GIB, null,
                        List.of(new Signals.Model("qwen", 32768.0, 16515.0, 0.93)), null)), List.of());
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts, s);
        assertThat(out.replace("\n", " ").replaceAll(" +", " "))
                .contains("available 20.00 GiB of 128.00 GiB gpu limit 107.52 GiB (96.77 GiB in use, 90%)");
        assertThat(line(out, "  mlx ")).contains("(kv headroom 16515 tok, context 32768)");
        assertThat(out.replace("\n", " ").replaceAll(" +", " ")).contains("qwen (kv headroom 16515 tok, context 32768) (gpu 93% of limit)");
        // A host without the limit (Linux) shows neither.
        Signals linux = new Signals(new Signals.Host(0.0, 0.0, 0.0, 20 * GIB, 128 * GIB, null, null),
                List.of(new Signals.Engine("mlx", 1.0, 0.0, 100 * GIB, null, List.of(new Signals.Model("qwen", 32768.0, 16515.0)), null)),
                List.of());
        assertThat(StatusScreen.render("http://127.0.0.1:9531", status, alerts, linux)).doesNotContain("gpu");
    }

    @Test
    void eachEngineShowsItsShareOfTheGpuWhereItIsKnown() throws Exception {
        JsonNode status = Json.MAPPER.readTree("{\"version\":\"0.1.0\",\"time\":\"2026-01-01T00:10:00Z\"}");
        JsonNode alerts = Json.MAPPER.readTree("{\"alerts\":[]}");
        Signals s = new Signals(new Signals.Host(0.0, 0.0, 0.0, 20 * GIB, 128 * GIB, 0.0, 1.0),
                List.of(new Signals.Engine("llama", 1.0, 0.0, 30 * GIB, null, List.of(), null, 1.0, 0.0, 0.75),
                        new Signals.Engine("ollama", 1.0, 0.0, 9 * GIB, null, List.of(), null, 1.0, 0.0, null)), List.of());
        String out = StatusScreen.render("http://127.0.0.1:9531", status, alerts, s);
        assertThat(line(out, "  llama ")).contains("footprint 30.00 GiB").contains("gpu 75%");
        // unknown (the first sample, or not a Mac) says nothing rather than 0 %
        assertThat(line(out, "  ollama ")).doesNotContain("gpu");
    }

    private static String line(String out, String start) {
        return out.lines().filter(l -> l.startsWith(start)).findFirst().orElseThrow();
    }

    @Test
    void systemPowerItsSourceFrozenRailsFansAndTheHottestSensorAreOnTheHostLine() throws Exception {
        JsonNode host = Json.MAPPER.readTree("""
                {"system_power_watts":21.5,"power_sources":{"system":"SMC key PSTR (AppleSMC user client)"},
                 "battery":{"power_watts":-15.5,"charge_ratio":0.8},
                 "power_unavailable":{"cpu":"unavailable (macOS froze this counter)"},
                 "fans":[{"id":"fan0","name":"fan 0","rpm":1200.0,"max_rpm":4800.0}],
                 "thermal":{"sensors":[{"id":"smc_Tp01","name":"cpu Tp01","celsius":45.5},{"id":"smc_Tg05","name":"gpu Tg05","celsius":51.5}]}}
                """);
        assertThat(StatusScreen.powerAndSensors(host)).containsExactly(
                "system power 21.5 W (SMC key PSTR (AppleSMC user client))",
                "battery discharging 15.5 W at 80%",
                "power cpu unavailable (macOS froze this counter)",
                "fan 0 1200 rpm of 4800",
                "hottest gpu Tg05 51.5 C");
        assertThat(StatusScreen.powerAndSensors(Json.MAPPER.readTree("{}"))).isEmpty();
    }
}
