package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.AgentProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `doctor --fleet`: the kit's push-side configs pass; a translation or temporality the queries cannot use is named. */
class FleetCheckTest {
    private static final Path KIT = AgentProcess.root().resolve("dashboards/fleet");

    @Test
    void theKitsCollectorAndPrometheusReceiverConfigsPass() {
        assertThat(FleetCheck.warnings(List.of(KIT.resolve("otel-collector.yaml"), KIT.resolve("prometheus-otlp.yml")),
                Map.of())).isEmpty();
    }

    @Test
    void aStrategyThatKeepsDotsOrDropsSuffixesIsNamed(@TempDir Path dir) throws Exception {
        for (String strategy : List.of("NoUTF8EscapingWithSuffixes", "UnderscoreEscapingWithoutSuffixes", "NoTranslation")) {
            Path f = Files.writeString(dir.resolve(strategy + ".yml"),
                    "otlp:\n  translation_strategy: " + strategy + "\n  promote_resource_attributes: [host, host.name]\n");
            assertThat(FleetCheck.warnings(List.of(f), Map.of())).singleElement().asString()
                    .contains("otlp.translation_strategy " + strategy).contains("UnderscoreEscapingWithSuffixes");
        }
        Path noHost = Files.writeString(dir.resolve("nohost.yml"),
                "otlp: {translation_strategy: UnderscoreEscapingWithSuffixes, promote_resource_attributes: [host.name]}\n");
        assertThat(FleetCheck.warnings(List.of(noHost), Map.of())).singleElement().asString()
                .contains("promote_resource_attributes lacks host");
    }

    @Test
    void deltaTemporalityTowardPrometheusIsNamed() {
        for (String t : List.of("delta", "LowMemory")) {
            assertThat(FleetCheck.warnings(List.of(), Map.of("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", t)))
                    .singleElement().asString().contains("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE")
                    .contains("cumulative");
        }
        assertThat(FleetCheck.warnings(List.of(), Map.of("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "cumulative")))
                .isEmpty();
    }

    @Test
    void aCollectorWithoutSuffixesOrResourceLabelsIsNamed(@TempDir Path dir) throws Exception {
        Path f = Files.writeString(dir.resolve("c.yaml"), """
                exporters:
                  prometheusremotewrite:
                    endpoint: http://127.0.0.1:9090/api/v1/write
                    add_metric_suffixes: false
                service: {pipelines: {metrics: {receivers: [otlp], exporters: [prometheusremotewrite]}}}
                """);
        assertThat(FleetCheck.warnings(List.of(f), Map.of())).hasSize(2)
                .anySatisfy(w -> assertThat(w).contains("add_metric_suffixes"))
                .anySatisfy(w -> assertThat(w).contains("resource_to_telemetry_conversion"));
        Path broken = Files.writeString(dir.resolve("broken.yaml"), "otlp: [unclosed\n");
        assertThat(FleetCheck.warnings(List.of(broken), Map.of())).singleElement().asString().contains("broken.yaml");
    }
}
