package io.tailwatch.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tailwatch.core.config.Config;
import io.tailwatch.testing.AgentProcess;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The parts of the fleet kit no tool here can check: the OpenTelemetry Collector config (no collector
 * binary is packaged for this platform) is checked for structure, and the Grafana provisioning for the
 * uids the dashboards and alert rules use.
 */
class FleetKitTest {
    private static final Path KIT = AgentProcess.root().resolve("dashboards/fleet");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Components of the otelcol-contrib distribution this kit uses, by section. */
    private static final Map<String, Set<String>> KNOWN = Map.of(
            "receivers", Set.of("otlp"),
            "processors", Set.of("memory_limiter", "batch"),
            "exporters", Set.of("prometheusremotewrite", "otlphttp", "otlp"));

    private static String type(String id) {
        int slash = id.indexOf('/');
        return slash < 0 ? id : id.substring(0, slash);
    }

    @Test
    void collectorConfigIsWellFormed() throws Exception {
        JsonNode c = YAML.readTree(KIT.resolve("otel-collector.yaml").toFile());
        List<String> problems = new ArrayList<>();
        for (String section : KNOWN.keySet()) {
            c.path(section).fieldNames().forEachRemaining(id -> {
                if (!KNOWN.get(section).contains(type(id))) {
                    problems.add(section + "." + id + ": not a component this kit expects");
                }
            });
        }
        JsonNode pipelines = c.path("service").path("pipelines");
        assertThat(pipelines.fieldNames()).toIterable().isNotEmpty();
        pipelines.fields().forEachRemaining(p -> {
            assertThat(type(p.getKey())).isIn("metrics");
            for (String section : KNOWN.keySet()) {
                JsonNode ids = p.getValue().path(section);
                if (!section.equals("processors")) {
                    assertThat(ids.size()).as(p.getKey() + " " + section).isGreaterThan(0);
                }
                ids.forEach(id -> {
                    if (c.path(section).path(id.asText()).isMissingNode()) {
                        problems.add("service.pipelines." + p.getKey() + "." + section + ": " + id.asText() + " is not defined");
                    }
                });
            }
        });
        assertThat(problems).isEmpty();
        // memory_limiter must come first among the processors (the collector's own advice).
        assertThat(pipelines.path("metrics").path("processors").get(0).asText()).isEqualTo("memory_limiter");
        // The OTLP/HTTP receiver listens on the port the agent's default otlp.endpoint uses.
        Config defaults = Config.defaults(Map.of());
        int agentPort = URI.create(defaults.otlp().endpoint()).getPort();
        String http = c.path("receivers").path("otlp").path("protocols").path("http").path("endpoint").asText();
        assertThat(http).endsWith(":" + agentPort);
        assertThat(c.path("receivers").path("otlp").path("protocols").path("grpc").path("endpoint").asText()).endsWith(":4317");
        String rw = c.path("exporters").path("prometheusremotewrite").path("endpoint").asText();
        assertThat(URI.create(rw).getPath()).isEqualTo("/api/v1/write");
    }

    @Test
    void grafanaDatasourcesCarryTheUidsTheDashboardsAndRulesUse() throws Exception {
        JsonNode ds = YAML.readTree(KIT.resolve("grafana/datasources.yaml").toFile());
        assertThat(ds.path("apiVersion").asInt()).isEqualTo(1);
        List<String> uids = new ArrayList<>();
        ds.path("datasources").forEach(d -> uids.add(d.path("uid").asText()));
        JsonNode rules = YAML.readTree(AgentProcess.root().resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml").toFile());
        String ruleUid = rules.path("groups").get(0).path("rules").get(0).path("data").get(0).path("datasourceUid").asText();
        assertThat(uids).contains(ruleUid, "tailwatch-alertmanager");
        JsonNode prom = ds.path("datasources").get(0);
        assertThat(prom.path("type").asText()).isEqualTo("prometheus");
        // timeInterval is the scrape interval of the kit's prometheus.yml.
        JsonNode promCfg = YAML.readTree(KIT.resolve("prometheus.yml").toFile());
        assertThat(prom.path("jsonData").path("timeInterval").asText())
                .isEqualTo(promCfg.path("global").path("scrape_interval").asText());
    }

    @Test
    void scrapeIntervalMatchesTheAgentsHostInterval() throws Exception {
        JsonNode promCfg = YAML.readTree(KIT.resolve("prometheus.yml").toFile());
        JsonNode agent = YAML.readTree(KIT.resolve("tailwatch.yaml").toFile());
        assertThat(promCfg.path("global").path("scrape_interval").asText()).isEqualTo(agent.path("host").path("interval").asText());
    }
}
