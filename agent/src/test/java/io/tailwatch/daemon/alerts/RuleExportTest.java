package io.tailwatch.daemon.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.metrics.Catalog;
import io.tailwatch.metrics.Instrument;
import io.tailwatch.metrics.MetricDef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The committed rule files are what the declarations generate; dashboards only name exported metrics. */
class RuleExportTest {
    private static final Path ROOT = Path.of(System.getProperty("tailwatch.root", ".."));
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern METRIC = Pattern.compile("\\b((?:tailwatch|system|hw|gen_ai)_[a-z0-9_]+)");

    private static Config defaults() throws Exception {
        return Config.defaults(Map.of());
    }

    @Test
    void committedPrometheusRulesAreGenerated() throws Exception {
        String committed = Files.readString(ROOT.resolve("dashboards/prometheus/tailwatch-rules.yml"));
        assertThat(committed).as("regenerate: java -jar agent/target/tailwatch.jar rules --format prometheus > dashboards/prometheus/tailwatch-rules.yml")
                .isEqualTo(RuleExport.prometheus(defaults()));
    }

    @Test
    void committedGrafanaRulesAreGenerated() throws Exception {
        String committed = Files.readString(ROOT.resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml"));
        assertThat(committed).as("regenerate: java -jar agent/target/tailwatch.jar rules --format grafana > dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml")
                .isEqualTo(RuleExport.grafana(defaults()));
    }

    @Test
    void prometheusFileCarriesEveryRuleWithItsDeclaration() throws Exception {
        JsonNode rules = YAML.readTree(RuleExport.prometheus(defaults())).path("groups").get(0).path("rules");
        assertThat(rules).hasSize(Rules.ALL.size());
        for (int i = 0; i < Rules.ALL.size(); i++) {
            RuleDef d = Rules.ALL.get(i);
            JsonNode r = rules.get(i);
            assertThat(r.path("alert").asText()).isEqualTo(d.name());
            assertThat(r.path("labels").path("severity").asText()).isEqualTo(d.severity().label());
            assertThat(r.path("annotations").path("runbook_url").asText()).isEqualTo("docs/runbook.md#" + d.name());
            assertThat(r.path("for").asText(null)).isEqualTo(d.defaultFor().isZero() ? null
                    : io.tailwatch.core.units.Units.format(d.defaultFor()));
        }
    }

    @Test
    void thresholdsAndDisabledRulesFromTheConfigShowInTheOutput() throws Exception {
        Config c = Config.parse("""
                rules:
                  SwapUsedHigh: {threshold: 2GiB, for: 5m}
                  EngineDown: {enabled: false}
                engines:
                  - name: a
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - {name: chat, interactive: true}
                      - {name: batch}
                """, "t", Map.of());
        String out = RuleExport.prometheus(c);
        JsonNode swap = YAML.readTree(out).path("groups").get(0).path("rules").get(0);
        assertThat(swap.path("alert").asText()).isEqualTo("SwapUsedHigh");
        assertThat(swap.path("expr").asText())
                .startsWith("(system_paging_usage_bytes{system_paging_state=\"used\"} > 2147483648) and on(job, instance)");
        assertThat(swap.path("for").asText()).isEqualTo("5m");
        assertThat(out).contains("tailwatch_scenario=~\\\"chat\\\"").doesNotContain("EngineDown").doesNotContain("batch");
        assertThat(RuleExport.grafana(c)).doesNotContain("EngineDown");
    }

    @Test
    void runbookBaseUrlMakesEveryExportedLinkAbsolute() throws Exception {
        Config c = Config.parse("alerts: {runbook_base_url: 'https://git.example/ops/tailwatch/blob/main/docs/runbook.md'}\n",
                "t", Map.of());
        for (String out : List.of(RuleExport.prometheus(c), RuleExport.grafana(c))) {
            List<String> links = YAML.readTree(out).findValuesAsText("runbook_url");
            assertThat(links).hasSize(Rules.ALL.size()).allSatisfy(l ->
                    assertThat(l).startsWith("https://git.example/ops/tailwatch/blob/main/docs/runbook.md#"));
            assertThat(links).contains("https://git.example/ops/tailwatch/blob/main/docs/runbook.md#EngineDown");
        }
    }

    @Test
    void everyRuleHasARunbookSectionAndPromtoolCases() throws Exception {
        String runbook = Files.readString(ROOT.resolve("docs/runbook.md"));
        String tests = Files.readString(ROOT.resolve("dashboards/prometheus/tests/tailwatch-rules.test.yml"));
        for (RuleDef d : Rules.ALL) {
            assertThat(runbook).as("runbook section for " + d.name()).contains("\n## " + d.name() + "\n");
            assertThat(tests).as("promtool cases for " + d.name()).contains("alertname: " + d.name() + "\n        exp_alerts: []")
                    .containsPattern("alertname: " + d.name() + "\n        exp_alerts:\n          - exp_labels");
        }
    }

    @Test
    void dashboardsAndRulesNameOnlyExportedMetrics() throws Exception {
        Set<String> known = new HashSet<>();
        for (MetricDef d : Catalog.all()) {
            known.add(d.prometheusName());
            // Label names share the prefixes; they are known when some metric declares them.
            d.attributeNames().forEach(a -> known.add(MetricDef.labelName(a)));
            if (d.instrument() == Instrument.HISTOGRAM) {
                for (String s : List.of("_count", "_sum", "_bucket", "_max")) {
                    known.add(d.prometheusName() + s);
                }
            }
        }
        Set<String> unknown = new TreeSet<>();
        for (String f : List.of("dashboards/grafana/host.json", "dashboards/grafana/engines.json", "dashboards/grafana/fleet.json",
                "dashboards/prometheus/tailwatch-rules.yml", "dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml")) {
            JsonNode root = f.endsWith(".json") ? new ObjectMapper().readTree(ROOT.resolve(f).toFile()) : YAML.readTree(ROOT.resolve(f).toFile());
            for (String expr : exprs(root)) {
                Matcher m = METRIC.matcher(expr);
                while (m.find()) {
                    if (!known.contains(m.group(1))) {
                        unknown.add(f + ": " + m.group(1));
                    }
                }
            }
        }
        assertThat(unknown).isEmpty();
    }

    @Test
    void everyGrafanaAlertLinksToThePanelThatPlotsItsSignal() throws Exception {
        JsonNode grafana = YAML.readTree(ROOT.resolve("dashboards/grafana/provisioning/alerting/tailwatch-rules.yaml").toFile());
        Map<String, JsonNode> dashboards = new java.util.HashMap<>();
        for (String name : List.of("host", "engines", "fleet")) {
            JsonNode d = new ObjectMapper().readTree(ROOT.resolve("dashboards/grafana/" + name + ".json").toFile());
            dashboards.put(d.path("uid").asText(), d);
        }
        // Rules on Prometheus's own series (TailwatchDown reads `up`) are matched by that name too.
        Pattern metricOrUp = Pattern.compile(METRIC.pattern() + "|\\b(up)\\{");
        int rules = 0;
        for (JsonNode r : grafana.path("groups").get(0).path("rules")) {
            rules++;
            String title = r.path("title").asText();
            JsonNode a = r.path("annotations");
            JsonNode d = dashboards.get(a.path("__dashboardUid__").asText());
            assertThat(d).as(title + ": dashboard (add the rule to RuleExport.PANELS)").isNotNull();
            JsonNode panel = null;
            for (JsonNode p : d.path("panels")) {
                if (p.path("id").asText().equals(a.path("__panelId__").asText())) {
                    panel = p;
                }
            }
            assertThat(panel).as(title + ": panel").isNotNull();
            Set<String> ruleMetrics = new TreeSet<>();
            Matcher m = metricOrUp.matcher(r.path("data").get(0).path("model").path("expr").asText());
            while (m.find()) {
                ruleMetrics.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
            assertThat(ruleMetrics).as(title + ": the series it reads").isNotEmpty();
            String panelExprs = String.join("\n", panel.path("targets").findValuesAsText("expr"));
            assertThat(ruleMetrics).as(title + " plotted on " + panel.path("title").asText())
                    .anyMatch(x -> panelExprs.contains(x + "{") || panelExprs.contains(x + " "));
        }
        assertThat(rules).isEqualTo(Rules.ALL.size());
    }

    @Test
    void panelsKeepOneUnitPerAxisAndTheHostPickerStartsOnOneHost() throws Exception {
        ObjectMapper json = new ObjectMapper();
        JsonNode host = json.readTree(ROOT.resolve("dashboards/grafana/host.json").toFile());
        JsonNode engines = json.readTree(ROOT.resolve("dashboards/grafana/engines.json").toFile());
        for (JsonNode d : List.of(host, engines)) {
            List<JsonNode> hostVars = hostVariables(d);
            assertThat(hostVars).as(d.path("uid").asText() + ": a host variable").hasSize(1);
            assertThat(hostVars.get(0).path("includeAll").asBoolean()).as(d.path("uid").asText() + ": host defaults to one host").isFalse();
            assertThat(hostVars.get(0).path("multi").asBoolean()).isFalse();
        }
        List<String> ownUnitTitles = List.of("Thermal", "GPU", "Memory pressure", "Sampler health", "Errors by type");
        Set<String> checked = new TreeSet<>();
        for (JsonNode d : List.of(host, engines)) {
            for (JsonNode p : d.path("panels")) {
                if (!p.path("type").asText().equals("timeseries")) {
                    continue;
                }
                // Every target beyond the first that plots another family gets its own unit through an override.
                Set<String> refsWithOwnUnit = new TreeSet<>();
                for (JsonNode o : p.path("fieldConfig").path("overrides")) {
                    if (o.path("matcher").path("id").asText().equals("byFrameRefID")) {
                        refsWithOwnUnit.add(o.path("matcher").path("options").asText());
                    }
                }
                assertThat(p.path("targets").findValuesAsText("expr")).as(p.path("title").asText())
                        .noneMatch(e -> e.matches(".*\\)?\\s*/\\s*100\\s*$"));
                String title = p.path("title").asText();
                if (ownUnitTitles.contains(title)) {
                    assertThat(refsWithOwnUnit).as(title).isNotEmpty();
                    checked.add(title);
                }
                if (title.equals("Decode rate")) {
                    assertThat(p.path("fieldConfig").path("defaults").path("unit").asText()).contains("tokens/s");
                    checked.add(title);
                }
            }
        }
        // The panels named above are all there (a renamed or dropped panel fails here, not silently).
        assertThat(checked).as("time-series panels checked by title").containsAll(ownUnitTitles).contains("Decode rate");
    }

    @Test
    void dashboardsHaveTheVariablesAndADatasourceVariable() throws Exception {
        for (String name : List.of("host", "engines", "fleet")) {
            JsonNode d = new ObjectMapper().readTree(ROOT.resolve("dashboards/grafana/" + name + ".json").toFile());
            List<String> vars = d.path("templating").path("list").findValuesAsText("name");
            assertThat(vars).contains("datasource", "host");
            if (name.equals("engines")) {
                assertThat(vars).contains("engine", "model");
            }
            for (JsonNode p : d.path("panels")) {
                if (!p.path("type").asText().equals("row")) {
                    assertThat(p.path("datasource").path("uid").asText()).as(name + ": " + p.path("title")).isEqualTo("${datasource}");
                    assertThat(p.path("targets")).as(name + ": " + p.path("title")).isNotEmpty();
                }
            }
        }
    }

    /**
     * The dashboards pick a machine by the host label, which names it the same way on the scrape (the kit's
     * relabel) and on the push (the agent's resource), never by instance (a UUID on the push): the host
     * variable lists host values and every selector of every panel target narrows to $host.
     */
    @Test
    void everyPanelTargetSelectsTheHostVariableOnTheHostLabel() throws Exception {
        int targets = 0;
        for (String name : List.of("host", "engines", "fleet")) {
            JsonNode d = new ObjectMapper().readTree(ROOT.resolve("dashboards/grafana/" + name + ".json").toFile());
            List<JsonNode> hostVars = hostVariables(d);
            assertThat(hostVars).as(name + ": one host variable").hasSize(1);
            assertThat(hostVars.get(0).path("query").path("query").asText()).as(name + ": host variable query")
                    .matches("label_values\\(\\w+, host\\)");
            assertThat(hostVars.get(0).path("definition").asText()).isEqualTo(hostVars.get(0).path("query").path("query").asText());
            for (JsonNode v : d.path("templating").path("list")) {
                assertThat(v.path("query").toString()).as(name + "/" + v.path("name").asText()).doesNotContain("instance=");
            }
            for (JsonNode p : d.path("panels")) {
                for (JsonNode t : p.path("targets")) {
                    targets++;
                    String expr = t.path("expr").asText();
                    String where = name + "/" + p.path("title").asText() + " [" + t.path("refId").asText() + "]: " + expr;
                    assertThat(expr).as(where).doesNotContain("instance=").doesNotContain("by (instance");
                    Matcher m = METRIC_SELECTOR.matcher(expr);
                    int selectors = 0;
                    while (m.find()) {
                        selectors++;
                        assertThat(m.group(2)).as(where + ": selector of " + m.group(1)).contains("host=~\"$host\"");
                    }
                    assertThat(selectors).as(where).isPositive();
                    // No series read without braces (a bare name would read every host).
                    String names = expr.replaceAll("\\{[^}]*}", "{}").replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", "");
                    assertThat(BARE_SERIES.matcher(names).results().map(r -> r.group(1)).toList()).as(where + ": series without a selector").isEmpty();
                    assertThat(t.path("legendFormat").asText("")).as(where).doesNotContain("{{instance}}");
                }
            }
        }
        assertThat(targets).as("panel targets checked").isGreaterThan(60);
    }

    /** A series selector in PromQL: a metric name with its braces (every selector of a panel has them). */
    private static final Pattern BARE_SERIES = Pattern.compile("\\b((?:tailwatch|system|hw|gen_ai|process)_[a-z0-9_]+|up|target_info)\\b(?!\\{)");
    private static final Pattern METRIC_SELECTOR = Pattern.compile("\\b([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})");

    /** The dashboard's template variables named host. */
    private static List<JsonNode> hostVariables(JsonNode dashboard) {
        List<JsonNode> out = new java.util.ArrayList<>();
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if (v.path("name").asText().equals("host")) {
                out.add(v);
            }
        }
        return out;
    }

    /** Every "expr" string under a JSON/YAML tree. */
    static List<String> exprs(JsonNode root) {
        return root.findValuesAsText("expr");
    }
}
