package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.OtlpReceiver;
import io.tailwatch.testing.TwoEngines;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OTLP wire decoded from the real jar: attribute types, one schema URL, the semconv bucket advice,
 * the temporality preference for histograms, the OTEL_* metric variables the agent refuses, and one
 * service.instance.id per agent.
 */
class OtlpSemconvIT {
    static final String SCHEMA = "https://opentelemetry.io/schemas/1.41.0";

    @TempDir
    Path dir;

    private Path config(String name, String listen, int simPort) throws Exception {
        Path cfg = dir.resolve(name);
        Files.writeString(cfg, """
                server: {listen: %s}
                host: {interval: 500ms}
                engines:
                """.formatted(listen) + TwoEngines.engine("sim", "openai", simPort, 4));
        return cfg;
    }

    private static List<Metric> metrics(OtlpReceiver r, String name) {
        List<Metric> out = new ArrayList<>();
        for (ExportMetricsServiceRequest req : r.requests()) {
            for (ResourceMetrics rm : req.getResourceMetricsList()) {
                for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                    for (Metric m : sm.getMetricsList()) {
                        if (m.getName().equals(name)) {
                            out.add(m);
                        }
                    }
                }
            }
        }
        return out;
    }

    private static AnyValue attr(List<KeyValue> attrs, String key) {
        return attrs.stream().filter(kv -> kv.getKey().equals(key)).map(KeyValue::getValue).findFirst().orElse(null);
    }

    @Test
    void theWireCarriesTypedAttributesOneSchemaTheAdviceAndDeltaHistograms() throws Exception {
        EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"));
        try (OtlpReceiver receiver = new OtlpReceiver();
             AgentProcess agent = AgentProcess.start(Map.of(
                     "OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                     "OTEL_METRIC_EXPORT_INTERVAL", "500",
                     "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "delta"),
                     "run", "-c", config("a.yaml", "127.0.0.1:0", sim.port()).toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(40)).until(() -> metrics(receiver, "gen_ai.client.operation.duration").size() >= 3);

            for (ExportMetricsServiceRequest req : receiver.requests()) {
                for (ResourceMetrics rm : req.getResourceMetricsList()) {
                    assertThat(rm.getSchemaUrl()).as("resource schema").isEqualTo(SCHEMA);
                    for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                        assertThat(sm.getSchemaUrl()).as("scope schema").isEqualTo(SCHEMA);
                    }
                }
            }
            Metric duration = metrics(receiver, "gen_ai.client.operation.duration").get(0);
            assertThat(duration.getHistogram().getAggregationTemporality())
                    .isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA);
            HistogramDataPoint p = duration.getHistogram().getDataPoints(0);
            AnyValue port = attr(p.getAttributesList(), "server.port");
            assertThat(port.getValueCase()).isEqualTo(AnyValue.ValueCase.INT_VALUE);
            assertThat(port.getIntValue()).isEqualTo(sim.port());
            assertThat(attr(p.getAttributesList(), "server.address").getStringValue()).isEqualTo("127.0.0.1");
            assertThat(p.getExplicitBoundsList()).containsExactly(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56,
                    5.12, 10.24, 20.48, 40.96, 81.92);
            assertThat(metrics(receiver, "gen_ai.client.operation.time_per_output_chunk").get(0).getHistogram()
                    .getDataPoints(0).getExplicitBoundsList()).startsWith(0.01).endsWith(81.92);
            assertThat(metrics(receiver, "gen_ai.client.token.usage").get(0).getHistogram()
                    .getDataPoints(0).getExplicitBoundsList()).startsWith(1.0).endsWith(67108864.0).hasSize(14);
            // Delta: no point counts more than the probes of one export interval (1 probe a second, 0.5 s apart).
            List<Metric> later = metrics(receiver, "gen_ai.client.operation.duration");
            for (Metric m : later) {
                for (HistogramDataPoint dp : m.getHistogram().getDataPointsList()) {
                    assertThat(dp.getCount()).isBetween(1L, 2L);
                    assertThat(dp.getStartTimeUnixNano()).isLessThan(dp.getTimeUnixNano());
                }
            }
            // Counters follow the same preference, as the SDK applies it.
            assertThat(metrics(receiver, "system.paging.operations")).isNotEmpty().allSatisfy(m ->
                    assertThat(m.getSum().getAggregationTemporality()).isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA));
        } finally {
            sim.close();
        }
    }

    /**
     * OTEL_SEMCONV_STABILITY_OPT_IN with gen_ai_latest_experimental/dup (and another category's value, ignored):
     * the semantic-conventions-genai names beside the 1.41.0 ones, on the wire and on the scrape, under one name
     * on both paths once Prometheus translates the push.
     */
    @Test
    void theGenAiOptInDupSendsTheCurrentNamesBesideThe141Ones() throws Exception {
        EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"));
        try (OtlpReceiver receiver = new OtlpReceiver();
             AgentProcess agent = AgentProcess.start(Map.of(
                     "OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
                     "OTEL_METRIC_EXPORT_INTERVAL", "500",
                     "OTEL_SEMCONV_STABILITY_OPT_IN", "http,gen_ai_latest_experimental/dup"),
                     "run", "-c", config("g.yaml", "127.0.0.1:0", sim.port()).toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(40)).until(() -> !metrics(receiver, "gen_ai.client.inference.usage.output_tokens").isEmpty()
                    && !metrics(receiver, "gen_ai.client.inference.time_per_output_chunk").isEmpty());
            for (String old : List.of("gen_ai.client.operation.duration", "gen_ai.client.operation.time_to_first_chunk",
                    "gen_ai.client.token.usage", "gen_ai.client.inference.duration", "gen_ai.client.inference.time_to_first_chunk",
                    "gen_ai.client.inference.operation.input_tokens", "gen_ai.client.inference.operation.output_tokens")) {
                assertThat(metrics(receiver, old)).as(old).isNotEmpty();
            }
            Metric duration = metrics(receiver, "gen_ai.client.inference.duration").get(0);
            assertThat(duration.getUnit()).isEqualTo("s");
            assertThat(duration.getHistogram().getDataPoints(0).getExplicitBoundsList()).startsWith(0.01).endsWith(81.92);
            assertThat(metrics(receiver, "gen_ai.client.inference.operation.output_tokens").get(0).getHistogram()
                    .getDataPoints(0).getExplicitBoundsList()).startsWith(1.0).endsWith(67108864.0);
            Metric usage = metrics(receiver, "gen_ai.client.inference.usage.output_tokens").get(0);
            assertThat(usage.getUnit()).isEqualTo("{token}");
            assertThat(usage.getSum().getIsMonotonic()).isTrue();
            assertThat(usage.getSum().getAggregationTemporality()).isEqualTo(AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE);
            var point = usage.getSum().getDataPoints(0);
            assertThat(point.getAsDouble()).isPositive();
            assertThat(attr(point.getAttributesList(), "gen_ai.token.modality").getStringValue()).isEqualTo("text");
            assertThat(attr(point.getAttributesList(), "server.port").getValueCase()).isEqualTo(AnyValue.ValueCase.INT_VALUE);
            assertThat(attr(point.getAttributesList(), "gen_ai.token.type")).isNull();

            String scrape = agent.get("/metrics").body();
            assertThat(scrape).contains("gen_ai_client_operation_duration_seconds_count{", "gen_ai_client_token_usage_count{",
                    "gen_ai_client_inference_duration_seconds_count{", "gen_ai_client_inference_time_to_first_chunk_seconds_count{",
                    "gen_ai_client_inference_operation_output_tokens_bucket{", "gen_ai_client_inference_usage_output_tokens_total{",
                    "gen_ai_client_inference_usage_input_tokens_total{");
            // The pushed GenAI series, translated as Prometheus does, are the scraped families.
            List<String> pushed = receiver.requests().stream().flatMap(r -> io.tailwatch.testing.PromTranslation.translate(r).stream())
                    .map(io.tailwatch.testing.PromTranslation.Sample::name).filter(n -> n.startsWith("gen_ai_")).distinct().toList();
            assertThat(pushed).isNotEmpty().allSatisfy(n -> assertThat(scrape).contains("\n" + n + "{"));
        } finally {
            sim.close();
        }
    }

    @Test
    void twoAgentsOnOneHostHaveTwoInstanceIdsAndARestartKeepsEach() throws Exception {
        try (OtlpReceiver receiver = new OtlpReceiver()) {
            Map<String, String> env = Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(), "OTEL_METRIC_EXPORT_INTERVAL", "500");
            Path a = dir.resolve("a.yaml");
            Path b = dir.resolve("b.yaml");
            Files.writeString(a, "server: {listen: 127.0.0.1:0}\nhost: {interval: 500ms}\nengines: []\n");
            int fixed;
            try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                fixed = s.getLocalPort();
            }
            Files.writeString(b, "server: {listen: 127.0.0.1:" + fixed + "}\nhost: {interval: 500ms}\nengines: []\n");
            String idA = instanceId(receiver, env, a);
            String idB = instanceId(receiver, env, b);
            assertThat(idA).isNotEqualTo(idB);
            assertThat(instanceId(receiver, env, a)).as("restart").isEqualTo(idA);
            // Another user (another data directory), same config: another agent.
            Map<String, String> other = new java.util.HashMap<>(env);
            other.put("XDG_DATA_HOME", dir.resolve("other-user").toString());
            assertThat(instanceId(receiver, other, a)).isNotEqualTo(idA);
        }
    }

    private String instanceId(OtlpReceiver receiver, Map<String, String> env, Path cfg) throws Exception {
        int before = receiver.received();
        try (AgentProcess agent = AgentProcess.start(env, "run", "-c", cfg.toString())) {
            agent.awaitListening();
            await().atMost(Duration.ofSeconds(30)).until(() -> receiver.received() > before);
            return receiver.lastResource().get("service.instance.id");
        }
    }

    @Test
    void metricVariablesTheAgentCannotHonourAreRefusedByName() throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, "server: {listen: 127.0.0.1:0}\nengines: []\n");
        AgentProcess.Result console = AgentProcess.run(Map.of("OTEL_METRICS_EXPORTER", "console"), "run", "-c", cfg.toString());
        assertThat(console.exitCode()).isEqualTo(2);
        assertThat(console.stderr()).contains("OTEL_METRICS_EXPORTER=console is not supported");
        AgentProcess.Result exp = AgentProcess.run(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9",
                "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION", "base2_exponential_bucket_histogram"),
                "run", "-c", cfg.toString());
        assertThat(exp.exitCode()).isEqualTo(2);
        assertThat(exp.stderr()).contains("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=base2_exponential_bucket_histogram");
        AgentProcess.Result check = AgentProcess.run(Map.of("OTEL_METRICS_EXPORTER", "console"), "config", "check", cfg.toString());
        assertThat(check.exitCode()).isEqualTo(2);
        assertThat(check.stdout() + check.stderr()).contains("OTEL_METRICS_EXPORTER");
    }
}
