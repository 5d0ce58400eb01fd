package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.Promtool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** promtool checks the generated rules and runs their unit tests (every rule firing and silent). */
class PromtoolRulesIT {
    private static final Path ROOT = AgentProcess.root();

    @Test
    void committedRulesPassPromtoolCheck() throws Exception {
        Promtool.Result r = Promtool.run(null, "check", "rules", ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml").toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS: " + Rules.ALL.size() + " rules found");
    }

    @Test
    void promtoolUnitTestsPass() throws Exception {
        Promtool.Result r = Promtool.run(null, "test", "rules",
                ROOT.resolve("dashboards/prometheus/tests/tailwatch-rules.test.yml").toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS");
    }

    @Test
    void jarOutputWithCustomThresholdsPassesPromtoolCheck(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, """
                rules:
                  SwapUsedHigh: {threshold: 512MiB, for: 30s}
                  ThermalThrottling: {threshold: 65%}
                  ProbeErrors: {enabled: false}
                """);
        AgentProcess.Result out = AgentProcess.run(Map.of(), "rules", "--format", "prometheus", "-c", cfg.toString());
        assertThat(out.exitCode()).as(out.stderr()).isZero();
        assertThat(out.stdout()).contains("> 536870912", "< 0.65").doesNotContain("ProbeErrors");
        // A config without engines: says nothing about scenario names: TtftOverSlo watches the default one, in
        // both formats, instead of matching no scenario at all.
        assertThat(out.stdout()).contains("tailwatch_scenario=~\\\"interactive\\\"").doesNotContain("=~\\\"\\\"");
        AgentProcess.Result grafana = AgentProcess.run(Map.of(), "rules", "--format", "grafana", "-c", cfg.toString());
        assertThat(grafana.exitCode()).as(grafana.stderr()).isZero();
        assertThat(grafana.stdout()).contains("tailwatch_scenario=~\\\"interactive\\\"").doesNotContain("=~\\\"\\\"");
        Path f = dir.resolve("rules.yml");
        Files.writeString(f, out.stdout());
        Promtool.Result r = Promtool.run(null, "check", "rules", f.toString());
        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.output()).contains("SUCCESS: " + (Rules.ALL.size() - 1) + " rules found");
        assertThat(out.stdout()).isEqualTo(RuleExport.prometheus(Config.load(cfg, Map.of())));
    }

    /**
     * Every rule fires in the promtool unit tests (which compare an alert's labels exactly), and in a firing case
     * the alert keeps what the kit's Alertmanager groups and routes by: severity, host (the scrape's relabel) and,
     * for a rule about an engine, the engine.
     */
    @Test
    void everyRuleFiresInTheUnitTestsWithTheLabelsARouteNeeds() throws Exception {
        com.fasterxml.jackson.databind.JsonNode tests = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(ROOT.resolve("dashboards/prometheus/tests/tailwatch-rules.test.yml").toFile());
        Map<String, java.util.List<com.fasterxml.jackson.databind.JsonNode>> firing = new java.util.HashMap<>();
        for (com.fasterxml.jackson.databind.JsonNode t : tests.path("tests")) {
            for (com.fasterxml.jackson.databind.JsonNode a : t.path("alert_rule_test")) {
                for (com.fasterxml.jackson.databind.JsonNode e : a.path("exp_alerts")) {
                    firing.computeIfAbsent(a.path("alertname").asText(), k -> new java.util.ArrayList<>())
                            .add(e.path("exp_labels"));
                }
            }
        }
        for (io.tailwatch.core.rules.RuleDef d : Rules.ALL) {
            boolean perEngine = d.summary().contains("{engine}") || d.description().contains("{engine}");
            assertThat(firing.get(d.name())).as(d.name() + " fires in the unit tests").isNotEmpty()
                    .anySatisfy(labels -> {
                        assertThat(labels.path("severity").asText()).isEqualTo(d.severity().label());
                        assertThat(labels.path("host").asText()).as(d.name() + ": host").isNotEmpty();
                        if (perEngine) {
                            assertThat(labels.path(Rules.ENGINE).asText()).as(d.name() + ": engine").isNotEmpty();
                        }
                    });
        }
        promtoolUnitTestsPass();
    }

    @Test
    void badRuleConfigExitsTwoWithLineAndColumn(@TempDir Path dir) throws Exception {
        Path cfg = dir.resolve("c.yaml");
        Files.writeString(cfg, "rules:\n  SwapUsedHgh: {threshold: 2GiB}\n");
        AgentProcess.Result out = AgentProcess.run(Map.of(), "rules", "--format", "prometheus", "-c", cfg.toString());
        assertThat(out.exitCode()).isEqualTo(2);
        assertThat(out.stderr()).contains("line 2, column 3: rules.SwapUsedHgh: unknown rule");
    }
}
