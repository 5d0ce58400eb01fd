package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The catalog, both exporters and docs/metrics.md must name exactly the same metrics. */
class CatalogAgreementTest {
    private static final Pattern TYPE = Pattern.compile("^# TYPE (\\S+) (\\S+)$", Pattern.MULTILINE);

    static Map<String, String> sampleAttributes(MetricDef def) {
        Map<String, String> m = new HashMap<>();
        for (AttributeDef a : def.attributes()) {
            if (!a.optional()) {
                m.put(a.name(), a.allowed().isEmpty() ? "x" : a.allowed().get(0));
            }
        }
        return m;
    }

    /** Publishes one series of every gauge and counter and records one event of every histogram. */
    static void fill(MetricHub hub) {
        List<Point> points = new java.util.ArrayList<>();
        for (MetricDef d : Catalog.all()) {
            if (d.instrument() == Instrument.HISTOGRAM) {
                hub.record(d, sampleAttributes(d), 0.3);
            } else if (d != SelfMetrics.SERIES_DROPPED) {
                points.add(new Point(d, sampleAttributes(d), 1));
            }
        }
        hub.publish("test", points);
    }

    @Test
    void prometheusExposesExactlyTheCatalog() {
        MetricHub hub = new MetricHub();
        PrometheusExporter prom = new PrometheusExporter(hub, Map.of("service.name", "tailwatch"));
        fill(hub);
        String text = prom.scrape("text/plain");
        Set<String> families = new TreeSet<>();
        Matcher m = TYPE.matcher(text);
        while (m.find()) {
            families.add(m.group(1));
        }
        Set<String> expected = new TreeSet<>();
        expected.add("target_info");
        for (MetricDef d : Catalog.all()) {
            expected.add(d.prometheusName());
            if (d.instrument() == Instrument.HISTOGRAM) {
                // Micrometer adds a _max gauge beside every distribution summary.
                expected.add(d.prometheusName() + "_max");
            }
        }
        for (String[] f : MetricsReference.PROMETHEUS_ONLY) {
            expected.add(f[0]);
        }
        // Linux-only families are absent elsewhere: unknown is not zero.
        if (!java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/status"))) {
            expected.remove("process_virtual_memory_bytes");
            expected.remove("process_resident_memory_bytes");
        }
        assertThat(families).isEqualTo(expected);
    }

    @Test
    void otlpExportsExactlyTheCatalogWithUnits() {
        InMemoryMetricReader reader = InMemoryMetricReader.create();
        MetricHub hub = new MetricHub();
        OtlpExporter otlp = OtlpExporter.withReader(reader, hub, Map.of("service.name", "tailwatch", "service.version", "9.9.9"));
        hub.addSink(otlp);
        fill(hub);
        Map<String, MetricData> got = reader.collectAllMetrics().stream()
                .collect(Collectors.toMap(MetricData::getName, x -> x));
        assertThat(got.keySet()).isEqualTo(Catalog.all().stream().map(MetricDef::name).collect(Collectors.toSet()));
        for (MetricDef d : Catalog.all()) {
            MetricData m = got.get(d.name());
            assertThat(m.getUnit()).as(d.name()).isEqualTo(d.unit());
            assertThat(m.getDescription()).as(d.name()).isEqualTo(d.description());
            assertThat(m.getInstrumentationScopeInfo().getName()).isEqualTo(OtlpExporter.SCOPE_NAME);
            assertThat(m.getInstrumentationScopeInfo().getVersion()).isEqualTo("9.9.9");
            assertThat(m.getInstrumentationScopeInfo().getSchemaUrl()).isEqualTo(OtlpExporter.SCHEMA_URL);
            switch (d.instrument()) {
                case GAUGE -> assertThat(m.getType()).as(d.name()).isEqualTo(MetricDataType.DOUBLE_GAUGE);
                case COUNTER -> {
                    assertThat(m.getType()).as(d.name()).isEqualTo(MetricDataType.DOUBLE_SUM);
                    assertThat(m.getDoubleSumData().isMonotonic()).as(d.name()).isTrue();
                }
                case UPDOWNCOUNTER -> {
                    assertThat(m.getType()).as(d.name()).isEqualTo(MetricDataType.DOUBLE_SUM);
                    assertThat(m.getDoubleSumData().isMonotonic()).as(d.name()).isFalse();
                }
                case HISTOGRAM -> assertThat(m.getType()).as(d.name()).isEqualTo(MetricDataType.HISTOGRAM);
            }
        }
        otlp.close();
    }

    @Test
    void endpointIsResolvedAsTheSdkResolvesIt() {
        assertThat(OtlpExporter.endpointUsed("http/protobuf", null, "http://127.0.0.1:4318"))
                .isEqualTo("http://127.0.0.1:4318/v1/metrics");
        assertThat(OtlpExporter.endpointUsed("http/protobuf", "http://c:9/m", "http://127.0.0.1:4318")).isEqualTo("http://c:9/m");
        assertThat(OtlpExporter.endpointUsed("grpc", null, "http://127.0.0.1:4317")).isEqualTo("http://127.0.0.1:4317");
        assertThat(OtlpExporter.endpointUsed("grpc", null, null)).isEqualTo("http://localhost:4317");
        assertThat(OtlpExporter.endpointUsed("http/protobuf", null, " ")).isEqualTo("http://localhost:4318/v1/metrics");
    }

    @Test
    void docsMatchTheCatalog() throws Exception {
        Path doc = Path.of(System.getProperty("tailwatch.root", ".."), "docs", "metrics.md");
        assertThat(Files.readString(doc))
                .as("docs/metrics.md is generated: java -jar agent/target/tailwatch.jar metrics > docs/metrics.md")
                .isEqualTo(MetricsReference.markdown());
        for (MetricDef d : Catalog.all()) {
            assertThat(MetricsReference.markdown()).contains("`" + d.name() + "`", "`" + d.prometheusName() + "`");
        }
    }
}
