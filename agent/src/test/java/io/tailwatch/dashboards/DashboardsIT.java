package io.tailwatch.dashboards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.HostFixture;
import io.tailwatch.testing.PrometheusServer;
import io.tailwatch.testing.TwoEngines;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's) scrapes the real jar (fixture procfs with 2 GiB of swap, an engine
 * simulator on loopback); every dashboard panel query and every Grafana alert query runs against it
 * with the variables substituted, and must succeed and return data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardsIT {
    private static final Path ROOT = AgentProcess.root();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Signals only macOS produces (Linux hosts have no thermal pressure level, GPU residency or free ratio). */
    private static final Set<String> MAC_ONLY = Set.of("tailwatch_thermal_pressure_level", "hw_gpu_utilization_ratio",
            "tailwatch_gpu_frequency_hertz", "tailwatch_memory_free_ratio", "tailwatch_process_memory_footprint_bytes",
            "hw_gpu_memory_limit_bytes", "hw_gpu_memory_usage_bytes", "tailwatch_model_gpu_memory_share_ratio",
            "tailwatch_power_rail_state", "hw_host_power_watts", "tailwatch_battery_power_watts", "hw_power_supply_limit_watts",
            "hw_fan_speed_rpm", "hw_fan_speed_limit_rpm");
    /**
     * Figures an engine reports about itself only when it exposes them (llama.cpp /slots or /metrics, vLLM,
     * vllm-mlx, mlx-vlm, a health queue field). The simulators expose none of them: absent by design here,
     * like the macOS signals. The header-time queue-wait estimate they do give is checked (it must have data).
     */
    private static final Set<String> ENGINE_REPORTED = Set.of("tailwatch_engine_requests", "tailwatch_engine_kv_cache_usage_ratio");
    /** Series that come from the engine monitor (probes, health, inventory) or engine process discovery. */
    private static final List<String> ENGINE_SOURCED = List.of("tailwatch_engine_", "tailwatch_probe_", "tailwatch_model_",
            "tailwatch_baseline_", "process_memory_usage", "gen_ai_");

    private EngineSimulator sim;
    private EngineSimulator ollama;
    private boolean processSampler;
    private AgentProcess agent;
    private PrometheusServer prometheus;
    private String instance;
    /** The same agent's OTLP push, translated as Prometheus' OTLP translation does, in a Prometheus of its own. */
    private io.tailwatch.testing.OtlpReceiver receiver;
    private com.sun.net.httpserver.HttpServer bridge;
    private PrometheusServer pushed;
    private String pushedInstance;
    private boolean engineMonitor;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        PrometheusServer.binary();
        HostFixture fx = HostFixture.copy("alerts-host", dir.resolve("host"));
        sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withTiming(Duration.ofMillis(20), 500));
        // The Ollama flavour reports the model shape (KV arithmetic) and fails a share of requests (errors by type).
        ollama = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama")
                .withTiming(Duration.ofMillis(20), 500).withFaults(0.3, 0, Duration.ZERO).withSeed(3));
        // The webhook points at a loopback port nobody listens on: the Agent row's delivery counters exist
        // (and count failures) as on a host whose receiver is gone.
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        // OTLP goes to a loopback receiver; its requests, translated by Prometheus' rules (PromTranslation), are
        // what a fleet Prometheus fed by the kit's Collector holds. A second Prometheus reads them (honor_labels
        // keeps their job and instance, and their timestamps are the points' own), so every query below runs on
        // the scrape and on the push. The webhook still points at a closed port (its delivery counters count failures).
        receiver = new io.tailwatch.testing.OtlpReceiver();
        bridge = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 4);
        bridge.createContext("/metrics", ex -> {
            List<io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest> rs = receiver.requests();
            StringBuilder b = new StringBuilder();
            if (!rs.isEmpty()) {
                for (io.tailwatch.testing.PromTranslation.Sample smp : io.tailwatch.testing.PromTranslation.translate(rs.get(rs.size() - 1))) {
                    b.append(smp.textLine()).append('\n');
                }
            }
            byte[] body = b.toString().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        bridge.start();
        Path config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, """
                server: {listen: 127.0.0.1:0}
                otlp: {enabled: true, endpoint: "%s", interval: 1s}
                host: {interval: 1s, timeout: 800ms, procfs: %s, sysfs: %s}
                """.formatted(receiver.endpoint(), fx.procfs(), fx.sysfs())
                + withProxy(TwoEngines.config(sim.port(), ollama.port(), dir.resolve("baselines.json")))
                + "  webhook: {url: \"http://127.0.0.1:" + closed + "/hook\", timeout: 500ms}\n");
        agent = AgentProcess.start(Map.of(), "run", "-c", config.toString());
        int port = agent.awaitListening();
        instance = "127.0.0.1:" + port;
        prometheus = PrometheusServer.start(dir.resolve("prom"), List.of(instance));
        Path pushedConfig = dir.resolve("prom-otlp.yml");
        Files.writeString(pushedConfig, """
                global: {scrape_interval: 1s, evaluation_interval: 1s}
                scrape_configs:
                  - job_name: otlp-collector
                    honor_labels: true
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(bridge.getAddress().getPort()));
        pushed = PrometheusServer.start(dir.resolve("prom-otlp"), pushedConfig);
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("up{job=\"tailwatch\"} == 1").path("data").path("result").size() == 1);
        // The fixture's 2 GiB of swap only counts while pages move: once Prometheus holds a paging
        // sample, pages are swapped in (SwapUsedHigh needs swap used and paging in progress).
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("system_paging_operations_total").path("data").path("result").size() == 2);
        fx.swapIn(500);
        // Two scrapes with the alert firing, so alert panels and the 10m-window queries have data.
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("count_over_time(tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\"}[1m]) >= 2")
                        .path("data").path("result").size() == 1);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    prometheus.query("tailwatch_engine_up").path("data").path("result").size() > 0
                            && prometheus.query("tailwatch_baseline_e2e_p95_seconds").path("data").path("result").size() > 0);
            engineMonitor = true;
            // Errors by type and KV headroom need a few probes and an inventory pass.
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    prometheus.query("gen_ai_client_operation_duration_seconds_count{error_type!=\"\"}").path("data").path("result").size() > 0
                            && prometheus.query("tailwatch_model_kv_cache_headroom_tokens").path("data").path("result").size() > 0);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            engineMonitor = false;
        }
        if (engineMonitor) {
            // The simulators expose no queue of their own: the probes' header-time estimate stands in.
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    prometheus.query("tailwatch_engine_queue_wait_seconds{tailwatch_queue_wait_source=\"estimate\"}").path("data").path("result").size() > 0);
        }
        processSampler = agent.get("/metrics").body().contains("process_memory_usage_bytes{");
        // Real requests through the simulator's metering proxy, in a lane with an SLO: the Lanes row's series.
        String listen = null;
        for (JsonNode p : JSON.readTree(agent.get("/api/v1/status").body()).path("proxies")) {
            listen = p.path("listen").asText();
        }
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        for (int i = 0; i < 3; i++) {
            java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://" + listen + "/v1/chat/completions")).header("X-Lane", "interactive")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"model\":\"" + sim.options().model()
                            + "\",\"stream\":true,\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("tailwatch_proxy_lane_window_ttft_seconds").path("data").path("result").size() > 0
                        && prometheus.query("tailwatch_proxy_lane_window_goodput_ratio").path("data").path("result").size() > 0);
        pushedInstance = receiver.lastResource().get("service.instance.id");
        // The push has caught up with the scrape: the alert and the engine series are there too.
        await().atMost(Duration.ofSeconds(30)).until(() ->
                pushed.query("count_over_time(tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\"}[1m]) >= 2")
                        .path("data").path("result").size() == 1
                        && (!engineMonitor || pushed.query("tailwatch_engine_queue_wait_seconds").path("data").path("result").size() > 0
                        && pushed.query("gen_ai_client_operation_duration_seconds_count{error_type!=\"\"}").path("data").path("result").size() > 0)
                        && pushed.query("tailwatch_proxy_lane_window_goodput_ratio").path("data").path("result").size() > 0
                        && pushed.query("tailwatch_proxy_lane_window_in_flight").path("data").path("result").size() > 0);
    }

    /** The simulator's engine with a metering proxy and one lane with an SLO (the Lanes row of the Engines dashboard). */
    private static String withProxy(String config) {
        String ollamaEngine = "  - name: ollama\n";
        assertThat(config).contains(ollamaEngine);
        return config.replace(ollamaEngine, """
                    proxy:
                      listen: 127.0.0.1:0
                      lanes:
                        - {name: interactive, header: {name: X-Lane, value: interactive}, slo: {ttft_p95: 2s, target: 0.9}}
                """ + ollamaEngine);
    }

    @AfterAll
    void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
        if (pushed != null) {
            pushed.close();
        }
        if (bridge != null) {
            bridge.stop(0);
        }
        if (receiver != null) {
            receiver.close();
        }
        if (agent != null) {
            agent.close();
        }
        if (sim != null) {
            sim.close();
        }
        if (ollama != null) {
            ollama.close();
        }
    }

    private String substitute(String expr) {
        return substitute(expr, instance);
    }

    private static String substitute(String expr, String host) {
        return expr.replace("$host", host.replace(".", "\\\\.")).replace("$engine", ".*").replace("$model", ".*")
                .replace("$__rate_interval", "1m").replace("$__interval", "15s");
    }

    private record Target(String dashboard, String panel, String ref, String expr) {
    }

    private static List<Target> targets(String dashboard) throws Exception {
        JsonNode d = JSON.readTree(ROOT.resolve("dashboards/grafana/" + dashboard + ".json").toFile());
        List<Target> out = new ArrayList<>();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                out.add(new Target(dashboard, p.path("title").asText(), t.path("refId").asText(), t.path("expr").asText()));
            }
        }
        return out;
    }

    private int results(String expr) throws Exception {
        return prometheus.query(substitute(expr)).path("data").path("result").size();
    }

    /** Series a query returns on the push path (the pushing agent's instance substituted for $host). */
    private int pushedResults(String expr) throws Exception {
        return pushed.query(substitute(expr, pushedInstance)).path("data").path("result").size();
    }

    /**
     * Every target runs; each returns data unless it reads only macOS signals, figures the simulators
     * do not report about themselves (ENGINE_REPORTED), or engine-monitor series while this jar has no
     * engine monitor.
     */
    private void checkDashboard(String name) throws Exception {
        List<String> empty = new ArrayList<>();
        List<Target> ts = targets(name);
        assertThat(ts).isNotEmpty();
        for (Target t : ts) {
            int n = results(t.expr());
            boolean macOnly = MAC_ONLY.stream().anyMatch(m -> t.expr().contains(m));
            boolean engineReported = ENGINE_REPORTED.stream().anyMatch(m -> t.expr().contains(m));
            boolean engineSide = ENGINE_SOURCED.stream().anyMatch(m -> t.expr().contains(m));
            boolean process = t.expr().contains("process_memory_usage");
            if (n == 0 && !macOnly && !engineReported && (engineMonitor || !engineSide) && (processSampler || !process)) {
                empty.add(t.panel() + " [" + t.ref() + "]: " + substitute(t.expr()));
            }
        }
        assertThat(empty).as(name + " panels without data").isEmpty();
    }

    @Test
    void hostDashboardPanelsReturnData() throws Exception {
        checkDashboard("host");
    }

    @Test
    void fleetDashboardPanelsReturnData() throws Exception {
        checkDashboard("fleet");
    }

    @Test
    void fleetTableHasOneRowForTheHostWithItsFiringAlert() throws Exception {
        Target firing = targets("fleet").get(0);
        JsonNode r = prometheus.query(substitute(firing.expr())).path("data").path("result");
        assertThat(r).hasSize(1);
        assertThat(r.get(0).path("metric").path("instance").asText()).isEqualTo(instance);
        // SwapUsedHigh at least (ProbeErrors too when the engine monitor probes the failing simulator).
        assertThat(r.get(0).path("value").get(1).asDouble()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void enginesDashboardPanelsReturnData() throws Exception {
        assumeTrue(engineMonitor, "engine monitor not in this jar: no engine series to show");
        checkDashboard("engines");
    }

    /**
     * Scrape and push agree: every dashboard panel query, every Grafana alert query and every Prometheus rule
     * returns data on the pushed series (the agent's OTLP translated by Prometheus' rules, in a Prometheus of
     * its own) exactly where it does on the scrape; SwapUsedHigh fires on both and TailwatchDown on neither.
     */
    @Test
    void everyQueryAndRuleAgreesOnTheScrapeAndThePush() throws Exception {
        List<String> disagree = new ArrayList<>();
        List<String> exprs = new ArrayList<>();
        Map<String, Integer> fired = new java.util.HashMap<>();
        for (String d : List.of("host", "fleet", "engines")) {
            for (Target t : targets(d)) {
                exprs.add(d + "/" + t.panel() + " [" + t.ref() + "]\u0000" + t.expr());
            }
        }
        JsonNode g = new ObjectMapper(new YAMLFactory())
                .readTree(ROOT.resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml").toFile());
        for (JsonNode rule : g.path("groups").get(0).path("rules")) {
            for (JsonNode q : rule.path("data")) {
                if (!q.path("datasourceUid").asText().equals("__expr__")) {
                    exprs.add("grafana/" + rule.path("title").asText() + "\u0000" + q.path("model").path("expr").asText());
                }
            }
        }
        JsonNode p = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toFile());
        for (JsonNode rule : p.path("groups").get(0).path("rules")) {
            exprs.add("rule/" + rule.path("alert").asText() + "\u0000" + rule.path("expr").asText());
        }
        for (String e : exprs) {
            String[] parts = e.split("\u0000", 2);
            int scraped = results(parts[1]);
            int push = pushedResults(parts[1]);
            if ((scraped > 0) != (push > 0)) {
                disagree.add(parts[0] + ": scrape " + scraped + ", push " + push + ": " + parts[1]);
            }
            fired.put(parts[0], push);
        }
        assertThat(exprs).hasSizeGreaterThan(Rules.ALL.size() * 2);
        assertThat(disagree).as("queries with data on one path only").isEmpty();
        assertThat(fired.get("rule/SwapUsedHigh")).as("SwapUsedHigh fires on the push").isEqualTo(1);
        assertThat(fired.get("rule/TailwatchDown")).as("TailwatchDown on the push while the agent pushes").isZero();
    }

    @Test
    void variableQueriesListTheHost() throws Exception {
        JsonNode v = prometheus.get("/api/v1/label/instance/values?match[]="
                + URLEncoder.encode("tailwatch_sampler_success", StandardCharsets.UTF_8));
        assertThat(v.path("data").toString()).contains(instance);
    }

    @Test
    void everyGrafanaAlertQueryRunsAndTheFiringOneReturnsData() throws Exception {
        JsonNode g = new ObjectMapper(new YAMLFactory())
                .readTree(ROOT.resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml").toFile());
        int checked = 0;
        for (JsonNode rule : g.path("groups").get(0).path("rules")) {
            for (JsonNode q : rule.path("data")) {
                if (q.path("datasourceUid").asText().equals("__expr__")) {
                    continue;
                }
                int n = results(q.path("model").path("expr").asText());
                checked++;
                if (rule.path("title").asText().equals("SwapUsedHigh")) {
                    assertThat(n).as("SwapUsedHigh fires on the 2 GiB fixture").isEqualTo(1);
                }
            }
        }
        assertThat(checked).isEqualTo(io.tailwatch.core.rules.Rules.ALL.size());
        // The committed Prometheus rules evaluate on the same data too.
        JsonNode p = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toFile());
        for (JsonNode rule : p.path("groups").get(0).path("rules")) {
            results(rule.path("expr").asText());
        }
    }
}
