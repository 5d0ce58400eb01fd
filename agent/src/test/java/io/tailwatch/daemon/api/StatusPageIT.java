package io.tailwatch.daemon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Chromium;
import io.tailwatch.testing.HostFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real browser: the real jar probing two `tailwatch simulate` engines on loopback,
 * headless Chromium loading /ui/ through the token form, and the rendered DOM checked against
 * /api/v1/status; the charts must draw, an alert must appear without a reload when one simulator stops,
 * and the strict Content-Security-Policy must block nothing the page does. Screenshots at laptop and
 * phone widths go to target/status-page/.
 */
class StatusPageIT {
    private static final String TOKEN = "ui-test-token-7f3c";
    private static final Path SHOTS = Path.of(System.getProperty("tailwatch.build", "target"), "status-page");

    @TempDir
    Path dir;

    private final List<Process> simulators = new ArrayList<>();
    private AgentProcess agent;

    @AfterEach
    void stop() throws InterruptedException {
        if (agent != null) {
            agent.close();
        }
        for (Process p : simulators) {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Starts `tailwatch simulate` and returns its port, read from its first line. */
    private int simulate(String api, String model, String ttft, String rate) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx48m",
                "-jar", AgentProcess.jar().toString(), "simulate", "--api", api, "--listen", "127.0.0.1:0",
                "--ttft", ttft, "--tokens-per-second", rate, "--model", model).redirectErrorStream(true).start();
        simulators.add(p);
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).as("simulate's first line").isNotNull().contains(model);
        Matcher m = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)").matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private JsonNode status() throws Exception {
        HttpResponse<String> r = agent.get("/api/v1/status", "Authorization", "Bearer " + TOKEN);
        assertThat(r.statusCode()).isEqualTo(200);
        return Json.MAPPER.readTree(r.body());
    }

    /** The page's window figures, keyed engine/model/scenario/figure, as raw numbers from data-value. */
    private static final String PAGE_FIGURES = """
            (() => { const out = {};
              for (const c of document.querySelectorAll('#windows .window[data-model]')) {
                for (const f of c.querySelectorAll('[data-figure][data-value]')) {
                  out[c.dataset.engine + '/' + c.dataset.model + '/' + c.dataset.scenario + '/' + f.dataset.figure]
                      = Number(f.dataset.value); } }
              return JSON.stringify(out); })()""";

    /** The same figures from /api/v1/status, read here without any of the page's code. */
    private static Map<String, Double> apiFigures(JsonNode status) {
        Map<String, Double> out = new TreeMap<>();
        for (JsonNode e : status.path("engines")) {
            for (JsonNode sc : e.path("scenarios")) {
                for (JsonNode w : sc.path("windows")) {
                    String k = e.path("name").asText() + "/" + w.path("model").asText() + "/" + sc.path("name").asText() + "/";
                    for (String q : List.of("p50", "p95", "p99")) {
                        out.put(k + "ttft-" + q, w.path("ttft_seconds").path(q).asDouble());
                        out.put(k + "e2e-" + q, w.path("e2e_seconds").path(q).asDouble());
                    }
                    out.put(k + "errors", w.path("error_ratio").asDouble());
                    out.put(k + "samples", w.path("samples").asDouble());
                }
            }
        }
        // The decode rate is the one the rules see (alerts.signals.windows).
        for (JsonNode w : status.path("alerts").path("signals").path("windows")) {
            out.put(w.path("engine").asText() + "/" + w.path("model").asText() + "/" + w.path("scenario").asText() + "/decode",
                    w.path("decode_rate").asDouble());
        }
        return out;
    }

    private Map<String, Double> pageFigures(Chromium browser) throws Exception {
        Map<String, Double> out = new TreeMap<>();
        JsonNode n = Json.MAPPER.readTree(browser.eval(PAGE_FIGURES).asText());
        n.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asDouble()));
        return out;
    }

    private void screenshot(Chromium browser, String name, int width, int height, boolean mobile) throws Exception {
        browser.viewport(width, height, mobile);
        // Let the layout settle at the new width before the shot.
        await().atMost(Duration.ofSeconds(5)).until(() -> browser.eval("document.documentElement.clientWidth").asInt() == width);
        Files.createDirectories(SHOTS);
        byte[] png = browser.screenshotFullPage();
        assertThat(png).as("PNG signature").startsWith(0x89, 'P', 'N', 'G');
        Files.write(SHOTS.resolve(name + ".png"), png);
    }

    @Test
    void pageShowsEnginesWindowsChartsAndALiveAlertInHeadlessChromium() throws Exception {
        int mlx = simulate("openai", "qwen3-8b-4bit", "60ms", "120");
        int ollama = simulate("ollama", "llama3.1:8b", "90ms", "60");
        HostFixture fx = HostFixture.copy("alerts-host", dir.resolve("host"));
        Files.writeString(dir.resolve("token"), TOKEN + "\n");
        Path config = dir.resolve("tailwatch.yaml");
        String scenario = "{name: interactive, interval: 2s, prompt_tokens: 16, max_tokens: 8, "
                + "timeouts: {connect: 300ms, first_token: 800ms, total: 900ms}}";
        Files.writeString(config, """
                server: {listen: 127.0.0.1:0, auth_token_file: %s}
                host: {interval: 1s, timeout: 800ms, procfs: %s, sysfs: %s}
                engines:
                  - name: mlx
                    api: openai
                    url: http://127.0.0.1:%d
                    health: {interval: 1s, timeout: 500ms}
                    scenarios:
                      - %s
                    proxy:
                      listen: 127.0.0.1:0
                      lanes:
                        - {name: interactive, header: {name: X-Lane, value: i}, slo: {ttft_p95: 2s, target: 0.9}}
                  - name: ollama
                    api: ollama
                    url: http://127.0.0.1:%d
                    health: {interval: 1s, timeout: 500ms}
                    scenarios:
                      - %s
                rules:
                  EngineDown: {for: 1s}
                alerts:
                  baseline: {file: %s}
                """.formatted(dir.resolve("token"), fx.procfs(), fx.sysfs(), mlx, scenario, ollama, scenario,
                dir.resolve("baselines.json")));
        agent = AgentProcess.start(Map.of(), "run", "-c", config.toString());
        agent.awaitListening();

        // The page's files carry the policy; the data behind them needs the token.
        HttpResponse<String> page = agent.get("/ui/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(StatusPage.CSP);
        assertThat(page.body()).contains("<script src=\"app.js\" defer></script>").doesNotContain("<script>");
        assertThat(agent.get("/ui").statusCode()).isEqualTo(301);
        assertThat(agent.get("/ui/secrets.txt").statusCode()).isEqualTo(404);
        assertThat(agent.get("/api/v1/history").statusCode()).isEqualTo(401);
        HttpResponse<String> runbook = agent.get("/ui/runbook");
        assertThat(runbook.statusCode()).isEqualTo(200);
        assertThat(runbook.headers().firstValue("Content-Security-Policy")).hasValue(StatusPage.CSP);
        assertThat(runbook.body()).contains("<section id=\"EngineDown\"><h2>EngineDown</h2>", "tailwatch diagnose")
                .doesNotContain("<a id=", "<script");

        try (Chromium browser = Chromium.start()) {
            browser.navigate(agent.url("/ui/"));
            // Without a token the page asks for one, and shows no data.
            await().atMost(Duration.ofSeconds(30)).until(() -> browser.eval("(() => { const l = document.getElementById('login');"
                    + " const p = document.getElementById('page'); return !!l && !!p && !l.hidden && p.hidden; })()").asBoolean());
            browser.eval("document.getElementById('token').value = '" + TOKEN + "';"
                    + "document.getElementById('login').requestSubmit(); true");

            // Each engine has its card, up, with its model; each scenario its window.
            // (a loaded CI host can miss one health deadline, so the card is awaited until a check completes in time)
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(browser.eval("document.querySelectorAll('#engines .engine .pill.ok').length").asInt()).isEqualTo(2);
                assertThat(browser.eval("document.getElementById('engines').innerText").asText())
                        .contains("mlx", "qwen3-8b-4bit", "ollama", "llama3.1:8b");
            });
            assertThat(browser.eval("document.getElementById('page').hidden").asBoolean()).isFalse();
            // Each engine card carries its readiness verdict, the one the status (and the ready route) gives.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode engines = status().path("engines");
                for (JsonNode e : engines) {
                    int ready = e.path("ready").path("ready").asBoolean() ? 1 : 0;
                    assertThat(browser.eval("Number(document.querySelector('#engines .engine[data-engine=\"" + e.path("name").asText()
                            + "\"] [data-figure=ready]')?.getAttribute('data-value'))").asInt(-1)).isEqualTo(ready);
                }
            });

            // The window figures are the API's figures: the same numbers (the page formats them only).
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> {
                Map<String, Double> api = apiFigures(status());
                Map<String, Double> shown = pageFigures(browser);
                return api.size() == 2 * 9 && api.equals(shown);
            });
            // Lanes beside the windows: one real request through mlx's metering proxy, in lane interactive; the
            // page shows the API's figures of the lane.
            String listen = status().path("proxies").get(0).path("listen").asText();
            java.net.http.HttpResponse<String> viaProxy = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                    .newBuilder(java.net.URI.create("http://" + listen + "/v1/chat/completions")).header("X-Lane", "i")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"model\":\"qwen3-8b-4bit\",\"stream\":true,"
                            + "\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(viaProxy.statusCode()).isEqualTo(200);
            String lane = "#lanes .lane[data-engine=mlx][data-lane=interactive] ";
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> browser.eval(
                    "Number(document.querySelector('" + lane + "[data-figure=requests]')?.getAttribute('data-value'))").asInt() == 1);
            JsonNode laneApi = status().path("proxies").get(0).path("lanes").get(0);
            assertThat(laneApi.path("lane").asText()).isEqualTo("interactive");
            assertThat(browser.eval("Number(document.querySelector('" + lane + "[data-figure=ttft-p95]').getAttribute('data-value'))")
                    .asDouble()).isEqualTo(laneApi.path("window").path("ttft_p95_seconds").asDouble()).isGreaterThanOrEqualTo(0.06);
            assertThat(browser.eval("document.querySelector('" + lane + "').innerText").asText())
                    .contains("lane interactive", "goodput", "100 % (target 90 %)", "(SLO 2.00 s)", "queue wait p95");
            assertThat(browser.eval("document.getElementById('lanes-section').hidden").asBoolean()).isFalse();
            // Names from outside go in as text: markup in an engine or lane name is shown, never run or parsed.
            JsonNode hostile = browser.eval("(() => { renderLanes([{engine: '<img src=x onerror=\"window.pwned=1\">', state: 'running',"
                    + " lanes: [{lane: '<script>window.pwned=2</script>', requests: 3, window: {requests: 2, in_flight: 0.5}}]},"
                    + " {engine: 'gone', state: 'failed', error: '<b>port in use</b>'}]);"
                    + " const l = document.getElementById('lanes'); return {text: l.textContent,"
                    + " markup: l.querySelectorAll('img, script, b').length, pwned: window.pwned === undefined}; })()");
            assertThat(hostile.path("text").asText()).contains("<img src=x onerror=\"window.pwned=1\">",
                    "lane <script>window.pwned=2</script>", "2 in 5 min (3 in all)", "0.50 (100 % of the engine)", "<b>port in use</b>");
            assertThat(hostile.path("markup").asInt()).isZero();
            assertThat(hostile.path("pwned").asBoolean()).isTrue();

            JsonNode w = status().path("engines").get(0).path("scenarios").get(0).path("windows").get(0);
            assertThat(w.path("ttft_seconds").path("p95").asDouble()).isGreaterThanOrEqualTo(0.06);

            // The charts drew lines with points for every moving signal, one line per engine for probe figures.
            await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                for (String chart : List.of("swap_used_bytes", "memory_pressure_level", "power_watts", "paging_pages_per_second")) {
                    if (polylines(browser, chart) < 1) {
                        return false;
                    }
                }
                for (String chart : List.of("ttft_p95_seconds", "e2e_p95_seconds", "decode_tokens_per_second")) {
                    if (polylines(browser, chart) < 2) {
                        return false;
                    }
                }
                return true;
            });
            // Paging: the fixture's counters stand still (0 pages/s, known), then pages keep being swapped in.
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                JsonNode paging = status().path("host").path("paging");
                return paging.path("in_per_second").isNumber() && paging.path("out_per_second").isNumber()
                        && paging.path("out_per_second").asDouble() == 0.0;
            });
            assertThat(polylines(browser, "paging_pages_per_second")).isEqualTo(2);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> {
                fx.swapIn(100);
                return browser.eval("Number(document.querySelector('#host-swap [data-figure=paging-in]')"
                        + ".getAttribute('data-value'))").asDouble() > 0;
            });
            assertThat(browser.eval("document.getElementById('host-swap').innerText").asText()).contains("pages in", "/s");
            JsonNode box = browser.eval("(() => { const r = document.querySelector('svg[data-chart=ttft_p95_seconds] polyline')"
                    + ".getBBox(); return {w: r.width, h: r.height}; })()");
            assertThat(box.path("w").asDouble()).as("a line spans time").isGreaterThan(0);
            // The TTFT SLO of the interactive scenario is drawn on its chart and on each window strip.
            assertThat(browser.eval("document.querySelectorAll('svg[data-chart=ttft_p95_seconds] line.threshold').length").asInt())
                    .isEqualTo(1);
            assertThat(browser.eval("document.querySelectorAll('#windows .fig line.threshold').length").asInt())
                    .isGreaterThanOrEqualTo(2);

            // GPU memory beside memory: this Linux host has no working-set limit, and says so (absent, not 0).
            assertThat(browser.eval("document.getElementById('host-gpu').textContent").asText())
                    .contains("No GPU working-set limit on this host");
            // The same card drawn from a 128 GiB M5 Max's figures: limit 107.52 GiB (0.84 of memory), one model
            // at 105 GiB of footprint + KV = 105 / 107.52 = 0.977 of the limit, past GpuMemoryLimitNear's 0.9.
            JsonNode mac = browser.eval("(() => { const c = gpuCard({gpu_memory: {limit_bytes: 115448720916, in_use_bytes: 103903848824},"
                    + " memory: {total_bytes: 137438953472}}, [{name: 'mlx', models: [{name: 'qwen', gpu_used_bytes: 112742891520,"
                    + " kv_headroom_tokens: 16515, kv_headroom_bound: 'gpu_limit'}]}], {GpuMemoryLimitNear: {threshold: 0.9}});"
                    + " const b = c.querySelector('.bar.gpu'); return {text: c.textContent, bars: c.querySelectorAll('.bar.gpu').length,"
                    + " share: Number(b.getAttribute('data-share')), width: b.querySelector('span').style.width,"
                    + " tick: b.querySelector('i.near').style.left, bad: c.querySelectorAll('.small.bad').length}; })()");
            assertThat(mac.path("text").asText()).contains("working-set limit", "84 %", "90 % of the limit", "mlx/qwen",
                    "98 %", "KV headroom 16,515 tokens (GPU limit binds)", "not set");
            assertThat(mac.path("bars").asInt()).isEqualTo(1);
            assertThat(mac.path("share").asDouble()).isCloseTo(105 / 107.52, org.assertj.core.data.Offset.offset(1e-9));
            assertThat(mac.path("width").asText()).isEqualTo("97.66%");
            assertThat(mac.path("tick").asText()).isEqualTo("90%");
            assertThat(mac.path("bad").asInt()).isEqualTo(1);

            screenshot(browser, "laptop", 1366, 900, false);
            screenshot(browser, "phone", 390, 844, true);
            // At phone width nothing is wider than the screen.
            assertThat(browser.eval("document.documentElement.scrollWidth").asInt()).isLessThanOrEqualTo(390);
            browser.viewport(1366, 900, false);

            // Stop one engine: the alert appears in the open page, no reload.
            Process sim = simulators.get(1);
            sim.destroy();
            assertThat(sim.waitFor(20, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(40)).until(() -> browser.eval(
                    "!!document.querySelector('#alerts .alert[data-alert=EngineDown][data-state=firing]')").asBoolean());
            String alert = browser.eval("document.querySelector('#alerts .alert[data-alert=EngineDown]').innerText").asText();
            assertThat(alert).contains("EngineDown", "engine=ollama", "runbook");
            assertThat(browser.eval("document.querySelector('#alerts .alert[data-alert=EngineDown] a').getAttribute('href')").asText())
                    .isEqualTo("runbook#EngineDown");
            assertThat(browser.eval("document.querySelector('#engines .engine[data-engine=ollama] .pill').textContent").asText())
                    .isEqualTo("down");
            assertThat(browser.eval("document.getElementById('summary').textContent").asText()).contains("firing");
            screenshot(browser, "laptop-alert", 1366, 900, false);
            screenshot(browser, "phone-alert", 390, 844, true);

            assertThat(browser.problems()).as("script errors or policy violations in the page").isEmpty();
            // And the policy is really enforced: an inline script added now is refused, and reported.
            browser.eval("const s = document.createElement('script'); s.textContent = 'window.injected = 1';"
                    + "document.body.appendChild(s); true");
            await().atMost(Duration.ofSeconds(5)).until(() -> !browser.problems().isEmpty());
            assertThat(browser.eval("window.injected === undefined").asBoolean()).isTrue();
            assertThat(browser.problems().toString()).contains("Content Security Policy");
        }
    }

    private static int polylines(Chromium browser, String chart) {
        return browser.eval("Array.from(document.querySelectorAll('svg[data-chart=" + chart + "] polyline'))"
                + ".filter(p => p.points.numberOfItems >= 2).length").asInt();
    }
}
