package io.tailwatch.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.HostFixture;
import io.tailwatch.testing.PrometheusServer;
import io.tailwatch.testing.Promtool;
import io.tailwatch.testing.TestCerts;
import io.tailwatch.testing.TwoEngines;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet kit (dashboards/fleet) as docs/fleet.md uses it: promtool and amtool check its files; two
 * agents (two processes on two loopback ports, each with its own fixture host tree) run the kit's agent
 * config and web config (openssl certificates, the kit's bcrypt hash); Debian's Prometheus runs the kit's
 * prometheus.yml (file_sd targets, host label, rules, HTTPS and basic auth) with only the intervals
 * shortened; and every query of the Fleet dashboard returns data. Also measures what one host costs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FleetKitIT {
    private static final Path ROOT = AgentProcess.root();
    private static final Path KIT = ROOT.resolve("dashboards/fleet");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The password whose bcrypt hash the kit's web.yml holds. */
    private static final String KIT_PASSWORD = "change-me";
    private static final Set<String> MAC_ONLY = Set.of("tailwatch_thermal_pressure_level", "tailwatch_gpu_utilization_ratio",
            "tailwatch_gpu_frequency_hertz", "tailwatch_memory_free_ratio", "tailwatch_process_memory_footprint_bytes");

    private Path kit;
    private EngineSimulator openai;
    private EngineSimulator ollama;
    private final List<AgentProcess> agents = new ArrayList<>();
    private final List<String> targets = new ArrayList<>();
    private PrometheusServer prometheus;

    @BeforeAll
    void start(@TempDir Path tmp) throws Exception {
        PrometheusServer.binary();
        kit = tmp.resolve("kit");
        Files.createDirectories(kit.resolve("targets"));
        for (String f : List.of("prometheus.yml", "web.yml", "tailwatch.yaml")) {
            Files.copy(KIT.resolve(f), kit.resolve(f));
        }
        // As docs/fleet.md: a CA, one certificate for the agents, the scrape password beside the Prometheus config.
        Path secrets = kit.resolve("secrets");
        TestCerts.ca(secrets, "ca");
        TestCerts.leaf(secrets, "ca", "agent", "ec");
        Files.createDirectories(kit.resolve("tls"));
        Files.copy(secrets.resolve("agent.crt"), kit.resolve("tls/agent.crt"));
        Files.copy(secrets.resolve("agent.key"), kit.resolve("tls/agent.key"));
        Files.writeString(secrets.resolve("scrape-password"), KIT_PASSWORD + "\n");

        openai = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withTiming(Duration.ofMillis(20), 500));
        ollama = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama")
                .withTiming(Duration.ofMillis(20), 500).withFaults(0.3, 0, Duration.ZERO).withSeed(3));
        String kitAgent = Files.readString(kit.resolve("tailwatch.yaml"));
        for (int i = 0; i < 2; i++) {
            HostFixture fx = HostFixture.copy("alerts-host", tmp.resolve("host" + i));
            if (i == 0) {
                // SwapUsedHigh needs swap used and pages moving or memory pressure at warning: this host
                // stalls on memory 12 % of the time (warning from PressureSampler.WARNING_SOME_PERCENT, 10 %).
                fx.setMemoryPressure(12.0, 0.5);
            }
            if (i == 1) {
                fx.setMeminfo("SwapFree", "6815744 kB");
                fx.setMeminfo("MemAvailable", "9000000 kB");
            }
            String cfg = kitAgent.replace("0.0.0.0:9531", "127.0.0.1:0")
                    .replace("/usr/local/etc/tailwatch/web.yml", kit.resolve("web.yml").toString())
                    .replace("interval: 15s", "interval: 1s").replace("timeout: 2s", "timeout: 800ms")
                    .replace("host:\n", "host:\n  procfs: " + fx.procfs() + "\n  sysfs: " + fx.sysfs() + "\n")
                    + engines(tmp.resolve("baselines" + i + ".json"));
            Path file = tmp.resolve("agent" + i + ".yaml");
            Files.writeString(file, cfg);
            AgentProcess.Result check = AgentProcess.run(Map.of(), "config", "check", file.toString());
            assertThat(check.exitCode()).as(check.stdout() + check.stderr()).isEqualTo(0);
            AgentProcess a = AgentProcess.start(Map.of(), "run", "-c", file.toString());
            agents.add(a);
            int port = a.awaitListening();
            // Two names for loopback, so the two targets get two host labels (the certificate names both).
            targets.add((i == 0 ? "127.0.0.1:" : "localhost:") + port);
        }
        Files.writeString(kit.resolve("targets/test.yml"), "- targets: ['" + String.join("', '", targets)
                + "']\n  labels: {site: test}\n");
        Path prom = kit.resolve("prometheus.yml");
        Files.writeString(prom, Files.readString(prom).replace("scrape_interval: 15s", "scrape_interval: 1s")
                .replace("scrape_timeout: 10s", "scrape_timeout: 1s").replace("evaluation_interval: 15s", "evaluation_interval: 1s")
                .replace("../prometheus/tailwatch-rules.yml", ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toString()));
        prometheus = PrometheusServer.start(kit.resolve("prom"), prom);
        try {
            await().atMost(Duration.ofSeconds(60)).until(() ->
                    prometheus.query("up{job=\"tailwatch\"} == 1").path("data").path("result").size() == 2);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            List<String> why = new ArrayList<>();
            prometheus.get("/api/v1/targets").path("data").path("activeTargets").forEach(t ->
                    why.add(t.path("scrapeUrl").asText() + " " + t.path("health").asText() + ": " + t.path("lastError").asText()));
            throw new AssertionError("targets not up within 60 s: " + why);
        }
    }

    private String engines(Path baselines) {
        return TwoEngines.config(openai.port(), ollama.port(), baselines);
    }

    @AfterAll
    void stop() {
        if (prometheus != null) {
            prometheus.close();
        }
        agents.forEach(AgentProcess::close);
        if (openai != null) {
            openai.close();
        }
        if (ollama != null) {
            ollama.close();
        }
    }

    private JsonNode result(String expr) throws Exception {
        return prometheus.query(expr).path("data").path("result");
    }

    @Test
    void promtoolAcceptsTheKitsPrometheusConfigAndRules() throws Exception {
        Promtool.Result r = Promtool.run(null, "check", "config", KIT.resolve("prometheus.yml").toString());
        assertThat(r.exitCode()).as(r.output()).isEqualTo(0);
        assertThat(r.output()).contains("SUCCESS: 1 rule files found");
    }

    @Test
    void amtoolAcceptsTheKitsAlertmanagerConfigAndRoutesTailwatchAlerts() throws Exception {
        String cfg = "--config.file=" + KIT.resolve("alertmanager.yml");
        String out = amtool("check-config", KIT.resolve("alertmanager.yml").toString());
        assertThat(out).contains("SUCCESS");
        assertThat(amtool("config", "routes", "test", cfg, "job=tailwatch", "severity=critical", "alertname=MemoryPressureCritical").strip())
                .isEqualTo("tailwatch");
        // What an agent sends itself (alerts.alertmanagers) matches the same route.
        assertThat(amtool("config", "routes", "test", cfg, "job=tailwatch", "instance=mac-mini-01.lab.example:9531",
                "host=mac-mini-01.lab.example", "severity=warning", "alertname=SwapUsedHigh").strip()).isEqualTo("tailwatch");
        // Nothing ends at a receiver without a notifier.
        assertThat(amtool("config", "routes", "test", cfg, "job=node", "alertname=Other").strip()).isEqualTo("tailwatch");
        assertThat(amtool("config", "routes", "show", cfg)).doesNotContain("receiver: default");
    }

    private static String amtool(String... args) throws Exception {
        String bin = null;
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, "amtool"))) {
                bin = Path.of(d, "amtool").toString();
            }
        }
        if (bin == null && "1".equals(System.getenv("TAILWATCH_REQUIRE_PROMTOOL"))) {
            throw new AssertionError("amtool is required (TAILWATCH_REQUIRE_PROMTOOL=1) but not on PATH");
        }
        assumeTrue(bin != null, "amtool not installed (apt-get install prometheus-alertmanager)");
        List<String> cmd = new ArrayList<>(List.of(bin));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(0);
        return out;
    }

    @Test
    void bothAgentsAreScrapedOverHttpsWithAHostLabelFromTheTarget() throws Exception {
        JsonNode up = result("up{job=\"tailwatch\"}");
        Map<String, String> hostByInstance = new TreeMap<>();
        up.forEach(r -> hostByInstance.put(r.path("metric").path("instance").asText(), r.path("metric").path("host").asText()));
        assertThat(hostByInstance).containsEntry(targets.get(0), "127.0.0.1").containsEntry(targets.get(1), "localhost");
        assertThat(result("tailwatch_sampler_success{site=\"test\", host=\"localhost\"}").size()).isGreaterThan(0);
    }

    @Test
    void theAlertRulesAreLoaded() throws Exception {
        JsonNode groups = prometheus.get("/api/v1/rules").path("data").path("groups");
        int rules = 0;
        for (JsonNode g : groups) {
            rules += g.path("rules").size();
        }
        String file = Files.readString(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml"));
        int declared = file.split("\n\\s*- alert: ", -1).length - 1;
        assertThat(declared).isGreaterThan(0);
        assertThat(rules).isEqualTo(declared);
        assertThat(groups.get(0).path("rules").get(0).path("health").asText()).isIn("ok", "unknown");
    }

    @Test
    void theHostsFiguresDiffer() throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(() ->
                result("system_paging_usage_bytes{job=\"tailwatch\", system_paging_state=\"used\"}").size() == 2);
        JsonNode swap = result("system_paging_usage_bytes{job=\"tailwatch\", system_paging_state=\"used\"}");
        Map<String, Double> byHost = new TreeMap<>();
        swap.forEach(r -> byHost.put(r.path("metric").path("host").asText(), r.path("value").get(1).asDouble()));
        // alerts-host: 8 GiB swap, 6 GiB free; the second copy 6.5 GiB free.
        assertThat(byHost).containsEntry("127.0.0.1", 2.0 * (1L << 30)).containsEntry("localhost", 1.5 * (1L << 30));
    }

    @Test
    void swapUsedHighFiresOnlyOnTheHostUnderMemoryPressure() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() ->
                result("tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\"} == 1").size() == 1);
        JsonNode firing = result("tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\"} == 1");
        assertThat(firing.get(0).path("metric").path("instance").asText()).isEqualTo(targets.get(0));
        // The second host has 1.5 GiB of swap but neither moving pages nor pressure.
        assertThat(result("tailwatch_alert_active{tailwatch_alert_name=\"SwapUsedHigh\", instance=\"" + targets.get(1) + "\"} == 1"))
                .isEmpty();
    }

    @Test
    void everyFleetDashboardQueryReturnsDataForBothHosts() throws Exception {
        JsonNode d = JSON.readTree(ROOT.resolve("dashboards/grafana/fleet.json").toFile());
        List<String[]> queries = new ArrayList<>();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                String expr = t.path("expr").asText();
                if (MAC_ONLY.stream().noneMatch(expr::contains)) {
                    // Panels of firing alerts only have data where an alert fires: SwapUsedHigh on the first host.
                    boolean firingOnly = expr.contains("tailwatch_alert_active") && !expr.contains(" or ");
                    queries.add(new String[] {p.path("title").asText() + " [" + t.path("refId").asText() + "]",
                            expr.replace("$host", ".*").replace("$__rate_interval", "1m").replace("$__interval", "15s"),
                            firingOnly ? "first" : "both"});
                }
            }
        }
        assertThat(queries).isNotEmpty();
        List<String> missing = new ArrayList<>();
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(2)).until(() -> {
                missing.clear();
                for (String[] q : queries) {
                    Set<String> hosts = new HashSet<>();
                    result(q[1]).forEach(r -> hosts.add(r.path("metric").path("host").asText()));
                    // Panels aggregate by host (or keep it): both hosts must be there (firing-alert panels: the first),
                    // each named as the relabel names it (the target without its port).
                    List<String> all = targets.stream().map(t -> t.substring(0, t.lastIndexOf(':'))).toList();
                    if (!hosts.containsAll(q[2].equals("both") ? all : List.of(all.get(0)))) {
                        missing.add(q[0] + ": " + q[1] + " -> " + hosts);
                    }
                }
                return missing.isEmpty();
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("Fleet panels without data for both hosts:\n" + String.join("\n", missing));
        }
    }

    /** Series and bytes of one scrape of one host with two engines and their probes; docs/fleet.md quotes it. */
    @Test
    void measureOneHostsScrape() throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() ->
                result("tailwatch_baseline_e2e_p95_seconds").size() > 0);
        JsonNode samples = result("scrape_samples_scraped{job=\"tailwatch\"}");
        assertThat(samples.size()).isEqualTo(2);
        double series = samples.get(0).path("value").get(1).asDouble();
        assertThat(series).isGreaterThan(50);
        HttpResponse<byte[]> plain = scrape(targets.get(0), null, false);
        HttpResponse<byte[]> gzip = scrape(targets.get(0), null, true);
        HttpResponse<byte[]> open = scrape(targets.get(0), "application/openmetrics-text; version=1.0.0", false);
        assertThat(plain.statusCode()).isEqualTo(200);
        // The agent compresses when asked, as Prometheus always asks.
        assertThat(gzip.headers().firstValue("Content-Encoding")).hasValue("gzip");
        String body = new String(plain.body(), StandardCharsets.UTF_8);
        long lines = body.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
        long perEngine = body.lines().filter(l -> !l.startsWith("#") && l.contains("tailwatch_engine_name=\"sim\"")).count();
        String report = String.format("fleet sizing: samples per scrape (Prometheus scrape_samples_scraped) %.0f; "
                        + "text lines %d, of which engine sim (1 scenario) %d; text bytes %d; on the wire (gzip) %d; OpenMetrics bytes %d%n",
                series, lines, perEngine, plain.body().length, gzip.body().length, open.body().length);
        System.out.print(report);
        Files.writeString(Path.of(System.getProperty("tailwatch.root", "..")).resolve("agent/target/fleet-sizing.txt"), report);
    }

    private HttpResponse<byte[]> scrape(String target, String accept, boolean gzip) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(kit.resolve("secrets/ca.crt"))) {
            trust.setCertificateEntry("ca", cf.generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        HttpClient c = HttpClient.newBuilder().sslContext(ctx).connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://" + target + "/metrics")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("prometheus:" + KIT_PASSWORD)
                        .getBytes(StandardCharsets.UTF_8)));
        if (accept != null) {
            b.header("Accept", accept);
        }
        if (gzip) {
            b.header("Accept-Encoding", "gzip");
        }
        try {
            return c.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new AssertionError("scrape of " + target + " failed: " + e);
        }
    }
}
