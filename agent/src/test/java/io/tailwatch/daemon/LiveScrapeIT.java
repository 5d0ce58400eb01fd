package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tailwatch.metrics.AttributeDef;
import io.tailwatch.metrics.Catalog;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.OtlpExporter;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.HostFixture;
import io.tailwatch.testing.OtlpReceiver;
import io.tailwatch.testing.Promtool;
import io.tailwatch.testing.TwoEngines;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar with everything live at once: probes against two simulators (one failing a share of
 * requests), the header-time engine signal, a firing alert (fixture swap), a learned baseline, and OTLP
 * push to a loopback receiver. The scrape must pass promtool, and the protobuf on the wire must match
 * the catalog in name, instrument type, unit and attributes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveScrapeIT {
    /** Families that only exist once probes, engine signals, alerts and baselines run. */
    private static final List<String> LIVE = List.of("tailwatch_probe_window_e2e_seconds{", "tailwatch_probe_window_ttft_seconds{",
            "gen_ai_client_operation_duration_seconds_bucket{", "tailwatch_engine_queue_wait_seconds{",
            "tailwatch_alert_active{", "tailwatch_baseline_e2e_p95_seconds{", "tailwatch_model_kv_cache_token_size_bytes{",
            "tailwatch_build_info{", "process_cpu_seconds_total ");

    private EngineSimulator sim;
    private EngineSimulator ollama;
    private OtlpReceiver receiver;
    private AgentProcess agent;
    private Path config;
    private Path small;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        HostFixture fx = HostFixture.copy("alerts-host", dir.resolve("host"));
        sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withTiming(Duration.ofMillis(20), 500));
        ollama = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama")
                .withTiming(Duration.ofMillis(20), 500).withFaults(0.3, 0, Duration.ZERO).withSeed(3));
        receiver = new OtlpReceiver();
        small = dir.resolve("small.yaml");
        Files.writeString(small, "server: {listen: 127.0.0.1:0}\nhost: {interval: 1s}\nengines: []\n");
        config = dir.resolve("tailwatch.yaml");
        Files.writeString(config, """
                server: {listen: 127.0.0.1:0}
                host: {interval: 1s, timeout: 800ms, procfs: %s, sysfs: %s}
                """.formatted(fx.procfs(), fx.sysfs()) + TwoEngines.config(sim.port(), ollama.port(), dir.resolve("baselines.json")));
        agent = AgentProcess.start(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                "OTEL_METRIC_EXPORT_INTERVAL", "1000"), "run", "-c", config.toString());
        agent.awaitListening();
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
            String body = agent.get("/metrics").body();
            return LIVE.stream().allMatch(body::contains);
        });
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[] {agent, receiver, sim, ollama}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                // next
            }
        }
    }

    @Test
    void promtoolIsCleanOnALiveScrape() throws Exception {
        String text = agent.get("/metrics").body();
        assertThat(text).doesNotContain("quantile=");
        Promtool.Result lint = Promtool.run(text, "check", "metrics");
        assertThat(lint.exitCode()).as(lint.output()).isZero();
        assertThat(lint.output()).as("no lint findings").isBlank();
    }

    @Test
    void theWireCarriesTheCatalogNamesTypesUnitsAndAttributes() {
        Set<String> live = Set.of("gen_ai.client.operation.duration", "tailwatch.probe.window.e2e", "tailwatch.alert.active",
                "tailwatch.baseline.e2e.p95", "tailwatch.engine.queue.wait", "system.memory.usage", "tailwatch.build.info");
        await().atMost(Duration.ofSeconds(30)).until(() -> receiver.metricNames().containsAll(live));
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (ExportMetricsServiceRequest r : receiver.requests()) {
            for (ResourceMetrics rm : r.getResourceMetricsList()) {
                for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                    assertThat(sm.getScope().getName()).isEqualTo(OtlpExporter.SCOPE_NAME);
                    assertThat(sm.getScope().getVersion()).isNotBlank();
                    assertThat(sm.getSchemaUrl()).isEqualTo(OtlpExporter.SCHEMA_URL);
                    for (Metric m : sm.getMetricsList()) {
                        checked++;
                        check(m, problems);
                    }
                }
            }
        }
        assertThat(checked).isPositive();
        assertThat(problems).isEmpty();
    }

    private static void check(Metric m, List<String> problems) {
        MetricDef d = Catalog.byName(m.getName());
        if (d == null) {
            problems.add(m.getName() + ": not in the catalog");
            return;
        }
        if (!m.getUnit().equals(d.unit())) {
            problems.add(m.getName() + ": unit " + m.getUnit() + ", catalog " + d.unit());
        }
        List<List<KeyValue>> points = new ArrayList<>();
        switch (d.instrument()) {
            case GAUGE -> {
                if (!m.hasGauge()) {
                    problems.add(m.getName() + ": not a Gauge on the wire");
                    return;
                }
                m.getGauge().getDataPointsList().forEach(p -> points.add(p.getAttributesList()));
            }
            case COUNTER, UPDOWNCOUNTER -> {
                boolean monotonic = d.instrument() == io.tailwatch.metrics.Instrument.COUNTER;
                if (!m.hasSum() || m.getSum().getIsMonotonic() != monotonic) {
                    problems.add(m.getName() + ": not a " + (monotonic ? "monotonic" : "non-monotonic") + " Sum on the wire");
                    return;
                }
                m.getSum().getDataPointsList().forEach(p -> points.add(p.getAttributesList()));
            }
            case HISTOGRAM -> {
                if (!m.hasHistogram()) {
                    problems.add(m.getName() + ": not a Histogram on the wire");
                    return;
                }
                m.getHistogram().getDataPointsList().forEach(p -> {
                    points.add(p.getAttributesList());
                    if (!p.getExplicitBoundsList().equals(io.tailwatch.metrics.ProbeMetrics.otlpBuckets(d))) {
                        problems.add(m.getName() + ": buckets " + p.getExplicitBoundsList());
                    }
                });
            }
        }
        for (List<KeyValue> attrs : points) {
            Map<String, String> a = new HashMap<>();
            attrs.forEach(kv -> a.put(kv.getKey(), kv.getValue().getStringValue()));
            for (AttributeDef def : d.attributes()) {
                String v = a.get(def.name());
                if (v == null && !def.optional()) {
                    problems.add(m.getName() + ": missing " + def.name() + " in " + a);
                }
                if (v != null && !def.accepts(v)) {
                    problems.add(m.getName() + ": " + def.name() + "=" + v + " not one of " + def.allowed());
                }
            }
            for (String k : a.keySet()) {
                if (d.attribute(k) == null) {
                    problems.add(m.getName() + ": undeclared attribute " + k);
                }
            }
        }
    }

    @Test
    void theLogNamesTheEndpointActuallyUsed() {
        await().atMost(Duration.ofSeconds(5)).until(() -> (agent.stdout() + agent.stderr())
                .contains("OTLP export on: " + receiver.endpoint() + "/v1/metrics"));
    }

    private static String instanceId(String metrics) {
        Matcher m = Pattern.compile("target_info\\{[^}]*service_instance_id=\"([^\"]+)\"").matcher(metrics);
        assertThat(m.find()).as("target_info carries service_instance_id").isTrue();
        return m.group(1);
    }

    @Test
    void serviceInstanceIdSurvivesARestartAndTheEnvironmentOverridesIt() throws Exception {
        String first = instanceId(agent.get("/metrics").body());
        assertThat(first).matches("[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        assertThat(receiver.lastResource()).containsEntry("service.instance.id", first);
        // Another process on this host (a lighter config: same listen address and data directory: the identity does not depend on the rest) gets the same id.
        try (AgentProcess again = AgentProcess.start(Map.of(), "run", "-c", small.toString())) {
            again.awaitListening();
            assertThat(instanceId(again.get("/metrics").body())).isEqualTo(first);
        }
        try (AgentProcess named = AgentProcess.start(Map.of("OTEL_RESOURCE_ATTRIBUTES", "service.instance.id=mac-07,team=a%2Cb"),
                "run", "-c", small.toString())) {
            named.awaitListening();
            String body = named.get("/metrics").body();
            assertThat(instanceId(body)).isEqualTo("mac-07");
            assertThat(body).contains("team=\"a,b\"");
        }
    }
}
