package io.tailwatch.dashboards;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's 2.42) scrapes the real jar (fixture procfs with 2 GiB of swap, an engine
 * simulator on loopback); every dashboard panel query and every Grafana alert query runs against it
 * with the variables substituted, and must succeed and return data. A Prometheus 3.5 (Debian's, from
 * scripts/prometheus-root.sh) holds the same agent's OTLP push, loaded with the kit's
 * {@code prometheus-otlp.yml} (its otlp block, its rules); every query must agree on both paths, and again
 * after an engine stops, an alert resolves and a lane's window empties.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
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
    private EngineSimulator sim;
    private EngineSimulator ollama;
    private boolean processSampler;
    private AgentProcess agent;
    private PrometheusServer prometheus;
    private String instance;
    private static final Path KIT = ROOT.resolve("dashboards/fleet");
    /** The same agent's OTLP push, translated as Prometheus' OTLP receiver does, in a Prometheus 3 of its own. */
    private io.tailwatch.testing.OtlpReceiver receiver;
    private PrometheusServer pushed;
    /** The kit's Alertmanager, alerted by both Prometheus (each evaluates the kit's rules). */
    private io.tailwatch.testing.AlertmanagerServer alertmanager;
    private Path dir;
    private Path config;
    private String configText;
    /** The machine both paths name in `host`: the scrape's relabel takes it from the target, the push from the listen address. */
    private static final String HOST = "127.0.0.1";
    /** Requests the pushed Prometheus refused (an out-of-order sample, say): none expected. */
    private final List<String> pushRefused = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Samples written into the push's Prometheus so far (reported with each comparison). */
    private final java.util.concurrent.atomic.AtomicLong pushedSamples = new java.util.concurrent.atomic.AtomicLong();
    private HostFixture fx;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        this.dir = dir;
        PrometheusServer.binary();
        fx = HostFixture.copy("alerts-host", dir.resolve("host"));
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
        // OTLP goes to a loopback receiver; each request, translated by Prometheus' rules (PromTranslation, points
        // flagged NO_RECORDED_VALUE as staleness markers, the resource attributes the kit's otlp block promotes),
        // is written into a Prometheus 3 loaded with the kit's prometheus-otlp.yml by remote write with the points'
        // own timestamps, as Prometheus' OTLP receiver appends them: no scrape, so a series ends there only when the
        // push says so. Every query below runs on the scrape and on the push.
        alertmanager = io.tailwatch.testing.AlertmanagerServer.start(dir.resolve("alertmanager"));
        pushed = startPushed("UnderscoreEscapingWithSuffixes");
        java.util.Set<String> promoted = promoted();
        io.tailwatch.testing.RemoteWrite write = new io.tailwatch.testing.RemoteWrite(pushed.url(""));
        receiver = new io.tailwatch.testing.OtlpReceiver();
        receiver.onRequest(r -> {
            try {
                List<io.tailwatch.testing.PromTranslation.Sample> samples = io.tailwatch.testing.PromTranslation.translate(r, promoted);
                write.write(samples);
                pushedSamples.addAndGet(samples.size());
            } catch (java.io.IOException e) {
                pushRefused.add(e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        config = dir.resolve("tailwatch.yaml");
        configText = """
                server: {listen: 127.0.0.1:0}
                otlp: {enabled: true, endpoint: "%s", interval: 1s}
                host: {interval: 1s, timeout: 800ms, procfs: %s, sysfs: %s}
                """.formatted(receiver.endpoint(), fx.procfs(), fx.sysfs())
                + withProxy(TwoEngines.config(sim.port(), ollama.port(), dir.resolve("baselines.json")))
                + "  webhook: {url: \"http://127.0.0.1:" + closed + "/hook\", timeout: 500ms}\n";
        Files.writeString(config, configText);
        agent = AgentProcess.start(Map.of(), "run", "-c", config.toString());
        int port = agent.awaitListening();
        instance = "127.0.0.1:" + port;
        // The kit's scrape: host from the target's address (dashboards/fleet/prometheus.yml).
        prometheus = PrometheusServer.start(dir.resolve("prom"), Files.writeString(dir.resolve("prom.yml"), """
                global: {scrape_interval: 1s, evaluation_interval: 1s}
                rule_files: ['%s']
                alerting:
                  alertmanagers:
                    - static_configs:
                        - targets: ['%s']
                scrape_configs:
                  - job_name: tailwatch
                    static_configs:
                      - targets: ['%s']
                    relabel_configs:
                      - source_labels: [__address__]
                        regex: '\\[?(.+?)\\]?:\\d+'
                        target_label: host
                        replacement: '$1'
                """.formatted(dir.resolve("prometheus/tailwatch-rules.yml"), alertmanager.address(), instance)));
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
        // The engine monitor's series: both engines up, a baseline, errors by type and KV headroom (a few probes
        // and an inventory pass), and the probes' header-time queue estimate (the simulators expose no queue).
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("tailwatch_engine_up == 1").path("data").path("result").size() == 2
                        && prometheus.query("tailwatch_baseline_e2e_p95_seconds").path("data").path("result").size() > 0);
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("gen_ai_client_operation_duration_seconds_count{error_type!=\"\"}").path("data").path("result").size() > 0
                        && prometheus.query("tailwatch_model_kv_cache_headroom_tokens").path("data").path("result").size() > 0);
        await().atMost(Duration.ofSeconds(30)).until(() ->
                prometheus.query("tailwatch_engine_queue_wait_seconds{tailwatch_queue_wait_source=\"estimate\"}").path("data").path("result").size() > 0);
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
        // The push has caught up with the scrape: the alert and the engine series are there too.
        await().atMost(Duration.ofSeconds(30)).until(() ->
                pushed.query("count_over_time(tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\"}[1m]) >= 2")
                        .path("data").path("result").size() == 1
                        && pushed.query("tailwatch_engine_queue_wait_seconds").path("data").path("result").size() > 0
                        && pushed.query("gen_ai_client_operation_duration_seconds_count{error_type!=\"\"}").path("data").path("result").size() > 0
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

    /**
     * Prometheus 3 with the kit's prometheus-otlp.yml, its translation strategy set to {@code strategy}, evaluating
     * every second, and the kit's rules at the kit's relative path with their for: durations shortened so that
     * they fire at once; it takes the translated push by remote write.
     */
    private PrometheusServer startPushed(String strategy) throws Exception {
        String kit = Files.readString(KIT.resolve("prometheus-otlp.yml"));
        String supported = "translation_strategy: UnderscoreEscapingWithSuffixes";
        assertThat(kit).contains("evaluation_interval: 15s", supported, "../prometheus/tailwatch-rules.yml", "'127.0.0.1:9093'");
        Path rules = Files.createDirectories(dir.resolve("prometheus")).resolve("tailwatch-rules.yml");
        Files.writeString(rules, Files.readString(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml"))
                .replaceAll("(?m)^(\\s+)for: \\w+$", "$1for: 0s"));
        Path file = Files.createDirectories(dir.resolve("fleet")).resolve("prometheus-otlp-" + strategy + ".yml");
        Files.writeString(file, kit.replace("evaluation_interval: 15s", "evaluation_interval: 1s")
                .replace("'127.0.0.1:9093'", "'" + alertmanager.address() + "'")
                .replace(supported, "translation_strategy: " + strategy));
        return PrometheusServer.start(PrometheusServer.binary3(), 0, dir.resolve("prom-otlp-" + strategy), file,
                "--web.enable-remote-write-receiver");
    }

    /** The resource attributes the kit's prometheus-otlp.yml promotes to labels on every series. */
    private static java.util.Set<String> promoted() throws Exception {
        JsonNode otlp = new ObjectMapper(new YAMLFactory()).readTree(KIT.resolve("prometheus-otlp.yml").toFile()).path("otlp");
        java.util.Set<String> out = new java.util.TreeSet<>();
        otlp.path("promote_resource_attributes").forEach(a -> out.add(a.asText()));
        assertThat(out).contains("host");
        return out;
    }

    @AfterAll
    void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
        if (pushed != null) {
            pushed.close();
        }
        if (alertmanager != null) {
            alertmanager.close();
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

    /** A dashboard query with its variables set: $host to the one machine (the same value on both paths). */
    private static String substitute(String expr) {
        return expr.replace("$host", HOST.replace(".", "\\\\.")).replace("$engine", ".*").replace("$model", ".*")
                .replace("$__rate_interval", "1m").replace("$__interval", "15s");
    }

    private record Target(String dashboard, String panel, String ref, String expr, String legend) {
    }

    private static List<Target> targets(String dashboard) throws Exception {
        JsonNode d = JSON.readTree(ROOT.resolve("dashboards/grafana/" + dashboard + ".json").toFile());
        List<Target> out = new ArrayList<>();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                out.add(new Target(dashboard, p.path("title").asText(), t.path("refId").asText(), t.path("expr").asText(),
                        t.path("legendFormat").asText("")));
            }
        }
        return out;
    }

    private int results(String expr) throws Exception {
        return prometheus.query(substitute(expr)).path("data").path("result").size();
    }

    /** Series a query returns on the push path ($host set to the same machine as on the scrape). */
    private int pushedResults(String expr) throws Exception {
        return pushed.query(substitute(expr)).path("data").path("result").size();
    }

    /**
     * Every target runs; each returns data unless it reads only macOS signals or figures the simulators
     * do not report about themselves (ENGINE_REPORTED).
     */
    private void checkDashboard(String name) throws Exception {
        List<String> empty = new ArrayList<>();
        List<Target> ts = targets(name);
        assertThat(ts).isNotEmpty();
        for (Target t : ts) {
            int n = results(t.expr());
            boolean macOnly = MAC_ONLY.stream().anyMatch(m -> t.expr().contains(m));
            boolean engineReported = ENGINE_REPORTED.stream().anyMatch(m -> t.expr().contains(m));
            boolean process = t.expr().contains("process_memory_usage");
            if (n == 0 && !macOnly && !engineReported && (processSampler || !process)) {
                empty.add(t.panel() + " [" + t.ref() + "]: " + substitute(t.expr()));
            }
        }
        assertThat(empty).as(name + " panels without data").isEmpty();
    }

    /**
     * Every {{label}} of a panel's legend is a label of the series its query returns (else the legend is blank);
     * a label only some series carry (an alert's engine, absent while only host alerts fire) counts when one of
     * them does or when a metric the query reads declares it in the catalog.
     */
    @Test
    void everyLegendNamesALabelOfItsSeries() throws Exception {
        List<String> blank = new ArrayList<>();
        int checked = 0;
        for (String d : List.of("host", "fleet", "engines")) {
            for (Target t : targets(d)) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{\\{\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*}}").matcher(t.legend());
                JsonNode r = prometheus.query(substitute(t.expr())).path("data").path("result");
                while (m.find() && !r.isEmpty()) {
                    checked++;
                    boolean somewhere = false;
                    for (JsonNode series : r) {
                        somewhere |= series.path("metric").has(m.group(1));
                    }
                    for (io.tailwatch.metrics.MetricDef def : io.tailwatch.metrics.Catalog.all()) {
                        if (t.expr().contains(def.prometheusName())) {
                            for (io.tailwatch.metrics.AttributeDef a : def.attributes()) {
                                somewhere |= io.tailwatch.metrics.MetricDef.labelName(a.name()).equals(m.group(1));
                            }
                        }
                    }
                    if (!somewhere) {
                        blank.add(d + "/" + t.panel() + " [" + t.ref() + "]: {{" + m.group(1) + "}} not on " + r.get(0).path("metric"));
                    }
                }
            }
        }
        assertThat(checked).isPositive();
        assertThat(blank).as("legends naming a label their series lack").isEmpty();
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
        assertThat(r.get(0).path("metric").path("host").asText()).isEqualTo(HOST);
        // SwapUsedHigh at least (ProbeErrors too when the engine monitor probes the failing simulator).
        assertThat(r.get(0).path("value").get(1).asDouble()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void enginesDashboardPanelsReturnData() throws Exception {
        checkDashboard("engines");
    }

    /** Every dashboard panel query, every Grafana alert query and every Prometheus rule, by where it comes from. */
    private static List<String[]> everyQuery() throws Exception {
        List<String[]> exprs = new ArrayList<>();
        for (String d : List.of("host", "fleet", "engines")) {
            for (Target t : targets(d)) {
                exprs.add(new String[] {d + "/" + t.panel() + " [" + t.ref() + "]", t.expr()});
            }
        }
        JsonNode g = new ObjectMapper(new YAMLFactory())
                .readTree(ROOT.resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml").toFile());
        for (JsonNode rule : g.path("groups").get(0).path("rules")) {
            for (JsonNode q : rule.path("data")) {
                if (!q.path("datasourceUid").asText().equals("__expr__")) {
                    exprs.add(new String[] {"grafana/" + rule.path("title").asText(), q.path("model").path("expr").asText()});
                }
            }
        }
        JsonNode p = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toFile());
        for (JsonNode rule : p.path("groups").get(0).path("rules")) {
            exprs.add(new String[] {"rule/" + rule.path("alert").asText(), rule.path("expr").asText()});
        }
        assertThat(exprs).hasSizeGreaterThan(Rules.ALL.size() * 2);
        return exprs;
    }

    /** The queries that return data on one path only, and how many series each query returns on the push. */
    private List<String> disagreements(Map<String, Integer> pushedSeries) throws Exception {
        List<String> disagree = new ArrayList<>();
        int withData = 0;
        for (String[] e : everyQuery()) {
            int scraped = results(e[1]);
            int push = pushedResults(e[1]);
            if ((scraped > 0) != (push > 0)) {
                disagree.add(e[0] + ": scrape " + scraped + ", push " + push + ": " + e[1]);
            }
            withData += scraped > 0 ? 1 : 0;
            pushedSeries.put(e[0], push);
        }
        System.out.printf("compared %d queries on both paths: %d with data on the scrape, %d on the push, %d disagree;"
                        + " %d samples pushed so far%n", pushedSeries.size(), withData,
                pushedSeries.values().stream().filter(n -> n > 0).count(), disagree.size(), pushedSamples.get());
        return disagree;
    }

    /**
     * Scrape and push agree: every dashboard panel query, every Grafana alert query and every Prometheus rule
     * returns data on the pushed series (the agent's OTLP translated by Prometheus' rules, in a Prometheus of
     * its own) exactly where it does on the scrape; SwapUsedHigh fires on both and TailwatchDown on neither.
     */
    @Test
    @Order(1)
    void everyQueryAndRuleAgreesOnTheScrapeAndThePush() throws Exception {
        Map<String, Integer> fired = new java.util.HashMap<>();
        assertThat(disagreements(fired)).as("queries with data on one path only").isEmpty();
        assertThat(fired.get("rule/SwapUsedHigh")).as("SwapUsedHigh fires on the push").isEqualTo(1);
        assertThat(fired.get("rule/TailwatchDown")).as("TailwatchDown on the push while the agent pushes").isZero();
        assertThat(pushRefused).as("remote writes the pushed Prometheus refused").isEmpty();
    }

    /**
     * Alerts group per host on both paths: every rule that fires, evaluated on the scrape and on the push, carries
     * host, the same machine on both (the listen address 127.0.0.1: the scrape's relabel takes it from the target,
     * the push from the agent's resource, which names it as the agent's own alerts do), so the kit's Alertmanager
     * (group_by [alertname, host]) puts each host's alerts in groups of their own on either path.
     */
    @Test
    @Order(2)
    void firingRulesCarryTheSameHostOnBothPaths() throws Exception {
        List<String> firing = new ArrayList<>();
        for (String[] e : everyQuery()) {
            if (!e[0].startsWith("rule/")) {
                continue;
            }
            for (PrometheusServer server : List.of(prometheus, pushed)) {
                String q = substitute(e[1]);
                for (JsonNode series : server.query(q).path("data").path("result")) {
                    firing.add(e[0] + (server == prometheus ? " scrape" : " push") + " host="
                            + series.path("metric").path("host").asText("(none)"));
                }
            }
        }
        assertThat(firing).contains("rule/SwapUsedHigh scrape host=127.0.0.1", "rule/SwapUsedHigh push host=127.0.0.1");
        assertThat(firing).allSatisfy(f -> assertThat(f).endsWith(" host=127.0.0.1"));
    }

    /**
     * Alertmanager groups per host on both paths: both Prometheus evaluate the kit's rules and alert one real
     * Alertmanager with the kit's alertmanager.yml (group_by [alertname, host]). SwapUsedHigh evaluated on the
     * scrape and on the push lands in one group, alertname and host 127.0.0.1, routed to the kit's receiver,
     * which is notified of that group with both alerts; every group Alertmanager holds has the host.
     */
    @Test
    @Order(3)
    void alertmanagerGroupsTheSameHostsAlertsFromBothPathsTogether() throws Exception {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode swap = null;
            for (JsonNode g : alertmanager.get("/api/v2/alerts/groups")) {
                if (g.path("labels").path("alertname").asText().equals("SwapUsedHigh")) {
                    assertThat(swap).as("one SwapUsedHigh group").isNull();
                    swap = g;
                }
            }
            assertThat(swap).as("the SwapUsedHigh group").isNotNull();
            assertThat(swap.path("labels").toString()).isEqualTo("{\"alertname\":\"SwapUsedHigh\",\"host\":\"" + HOST + "\"}");
            assertThat(swap.path("receiver").path("name").asText()).isEqualTo("tailwatch");
            List<String> instances = new ArrayList<>();
            swap.path("alerts").forEach(a -> instances.add(a.path("labels").path("instance").asText()));
            // one from the scrape (the target's address), one from the push (the agent's service.instance.id)
            assertThat(instances).hasSize(2).contains(instance).doesNotHaveDuplicates();
        });
        List<String> groups = new ArrayList<>();
        for (JsonNode g : alertmanager.get("/api/v2/alerts/groups")) {
            groups.add(g.path("labels").path("alertname").asText() + " host=" + g.path("labels").path("host").asText("(none)"));
        }
        assertThat(groups).isNotEmpty().allSatisfy(g -> assertThat(g).endsWith(" host=" + HOST));
        await().atMost(Duration.ofSeconds(30)).until(() -> alertmanager.notifications().stream().anyMatch(n ->
                n.path("groupLabels").toString().equals("{\"alertname\":\"SwapUsedHigh\",\"host\":\"" + HOST + "\"}")
                        && n.path("alerts").size() == 2));
    }

    /**
     * Series end on both paths alike: an engine stops (its models, KV headroom and inventory leave the scrape at
     * once; on the push the agent flags their last point "no recorded value", which the receiver turns into a
     * staleness marker), SwapUsedHigh resolves (its active series leaves both, and so does the alert each
     * Prometheus evaluated from the kit's rules) and the lane's window empties (a reload sets lane_window to 1s:
     * its percentiles and goodput go). Each is gone from the push within seconds, not after Prometheus' 5-minute
     * lookback, and then every query agrees again. Runs after the others: it changes what they read.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void anEngineThatStopsAnAlertThatResolvesAndALaneThatEmptiesEndOnBothPaths() throws Exception {
        List<String> ending = List.of("tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\"}",
                "ALERTS{alertname=\"SwapUsedHigh\"}",
                "tailwatch_model_context_length{tailwatch_engine_name=\"ollama\"}",
                "tailwatch_proxy_lane_window_ttft_seconds{tailwatch_lane=\"interactive\"}",
                "tailwatch_proxy_lane_window_goodput_ratio{tailwatch_lane=\"interactive\"}");
        for (String q : ending) {
            assertThat(results(q)).as(q + " on the scrape").isPositive();
            assertThat(pushedResults(q)).as(q + " on the push").isPositive();
        }
        ollama.close();
        fx.setMeminfo("SwapFree", "8388608 kB");
        String lanes = "      lanes:\n";
        assertThat(configText).contains(lanes);
        Files.writeString(config, configText.replace(lanes, "      lane_window: 1s\n" + lanes));
        assertThat(new ProcessBuilder("kill", "-HUP", Long.toString(agent.process().pid())).start().waitFor()).isZero();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (String q : ending) {
                assertThat(results(q)).as(q + " on the scrape").isZero();
            }
        });
        // The push ends them within an export or two, not after the lookback.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (String q : ending) {
                assertThat(pushedResults(q)).as(q + " on the push").isZero();
            }
        });
        // The configured lane stays, empty, on both: its request count is 0.
        String emptyLane = "tailwatch_proxy_lane_window_requests{tailwatch_lane=\"interactive\"} == 0";
        assertThat(results(emptyLane)).isEqualTo(1);
        assertThat(pushedResults(emptyLane)).isEqualTo(1);
        Map<String, Integer> fired = new java.util.HashMap<>();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(disagreements(fired)).as("queries with data on one path only").isEmpty());
        assertThat(fired.get("rule/SwapUsedHigh")).as("SwapUsedHigh, resolved, on the push").isZero();
        assertThat(fired.get("rule/EngineDown")).as("EngineDown for the stopped engine on the push").isEqualTo(1);
        assertThat(pushRefused).as("remote writes the pushed Prometheus refused").isEmpty();
    }

    /** Each dashboard's host variable, run as Grafana runs label_values, lists the same one machine on both paths. */
    @Test
    void variableQueriesListTheSameHostOnBothPaths() throws Exception {
        java.util.regex.Pattern labelValues = java.util.regex.Pattern.compile("label_values\\((\\w+), (\\w+)\\)");
        for (String d : List.of("host", "fleet", "engines")) {
            JsonNode dashboard = JSON.readTree(ROOT.resolve("dashboards/grafana/" + d + ".json").toFile());
            String query = null;
            for (JsonNode v : dashboard.path("templating").path("list")) {
                if (v.path("name").asText().equals("host")) {
                    query = v.path("query").path("query").asText();
                }
            }
            java.util.regex.Matcher m = labelValues.matcher(String.valueOf(query));
            assertThat(m.matches()).as(d + ": host variable query " + query).isTrue();
            String path = "/api/v1/label/" + m.group(2) + "/values?match[]=" + URLEncoder.encode(m.group(1), StandardCharsets.UTF_8);
            assertThat(prometheus.get(path).path("data").toString()).as(d + " on the scrape").isEqualTo("[\"" + HOST + "\"]");
            assertThat(pushed.get(path).path("data").toString()).as(d + " on the push").isEqualTo("[\"" + HOST + "\"]");
        }
    }

    @Test
    void everyGrafanaAlertQueryRunsAndTheFiringOneReturnsData() throws Exception {
        JsonNode g = new ObjectMapper(new YAMLFactory())
                .readTree(ROOT.resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml").toFile());
        int checked = 0;
        Map<String, Integer> swapQueries = new java.util.HashMap<>();
        for (JsonNode rule : g.path("groups").get(0).path("rules")) {
            for (JsonNode q : rule.path("data")) {
                if (q.path("datasourceUid").asText().equals("__expr__")) {
                    continue;
                }
                int n = results(q.path("model").path("expr").asText());
                checked++;
                if (rule.path("title").asText().equals("SwapUsedHigh")) {
                    swapQueries.put(rule.path("title").asText() + "/" + q.path("refId").asText(), n);
                }
            }
        }
        assertThat(checked).isEqualTo(io.tailwatch.core.rules.Rules.ALL.size());
        // SwapUsedHigh has one query, and it fires on the 2 GiB fixture.
        assertThat(swapQueries).hasSize(1);
        assertThat(swapQueries.values()).as("SwapUsedHigh fires on the 2 GiB fixture").containsOnly(1);
        // The committed Prometheus rules evaluate on the same data too.
        JsonNode p = new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toFile());
        for (JsonNode rule : p.path("groups").get(0).path("rules")) {
            results(rule.path("expr").asText());
        }
    }
}
