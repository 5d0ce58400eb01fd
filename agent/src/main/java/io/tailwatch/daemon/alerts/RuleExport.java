package io.tailwatch.daemon.alerts;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.RulesConfig;
import io.tailwatch.core.rules.Expr;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.units.Units;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders the rule declarations, with a config's thresholds, as a Prometheus alerting-rules file
 * and as a Grafana alerting provisioning file. Output is deterministic so the committed
 * dashboards/prometheus/tailwatch-rules.yml can be compared with what this prints.
 */
public final class RuleExport {
    /** UID of the provisioned Prometheus datasource the Grafana rules query. */
    public static final String DATASOURCE_UID = "tailwatch-prometheus";

    private RuleExport() {
    }

    /** One enabled rule with its effective settings and built expression. */
    public record Effective(RuleDef def, Double threshold, Duration forDuration, Expr expr, String runbook) {
        public String summaryTemplate(String valueRef) {
            return def.renderTemplate(def.summary(), valueRef, threshold, forDuration);
        }

        public String descriptionTemplate(String valueRef) {
            return def.renderTemplate(def.description(), valueRef, threshold, forDuration);
        }
    }

    public static List<String> interactiveScenarios(Config config) {
        List<String> out = new ArrayList<>();
        if (config.autoEngines() || config.engines().isEmpty()) {
            // The scenario discovered engines are probed with; a config that lists no engines (a fleet's rules
            // file made with `rules -c`) says nothing about scenario names, so the default one stands.
            out.add("interactive");
        }
        for (EngineConfig e : config.engines()) {
            for (EngineConfig.Scenario s : e.scenarios()) {
                if (s.interactive() && !out.contains(s.name())) {
                    out.add(s.name());
                }
            }
        }
        return out;
    }

    public static List<Effective> effective(RulesConfig rules, List<String> interactive) {
        return effective(rules, interactive, null);
    }

    /** The enabled rules; {@code runbookBase} (alerts.runbook_base_url, may be null) makes the links absolute. */
    public static List<Effective> effective(RulesConfig rules, List<String> interactive, String runbookBase) {
        List<Effective> out = new ArrayList<>();
        for (RuleDef d : Rules.ALL) {
            RulesConfig.RuleSettings s = rules.of(d.name());
            if (!s.enabled()) {
                continue;
            }
            double t = s.threshold() == null ? Double.NaN : s.threshold();
            out.add(new Effective(d, s.threshold(), s.forDuration(), d.build(new RuleDef.Params(t, interactive)),
                    d.runbook(runbookBase)));
        }
        return out;
    }

    public static String prometheus(Config config) {
        return prometheus(effective(config.rules(), interactiveScenarios(config), config.alerts().runbookBaseUrl()));
    }

    public static String prometheus(List<Effective> rules) {
        ArrayNode list = YAML.createArrayNode();
        for (Effective e : rules) {
            ObjectNode r = list.addObject();
            r.put("alert", e.def().name());
            r.put("expr", e.expr().promql());
            if (!e.forDuration().isZero()) {
                r.put("for", Units.format(e.forDuration()));
            }
            r.putObject("labels").put("severity", e.def().severity().label());
            annotations(r, e, "$value");
        }
        ObjectNode root = YAML.createObjectNode();
        root.putArray("groups").addObject().put("name", "tailwatch").set("rules", list);
        return header("prometheus") + write(root);
    }

    public static String grafana(Config config) {
        return grafana(effective(config.rules(), interactiveScenarios(config), config.alerts().runbookBaseUrl()));
    }

    /**
     * Grafana-managed rules: query A is the same PromQL (it returns a series only where the condition
     * holds), B a math expression true for every series A returns; no data means normal. TailwatchDown
     * is the exception: A is the agent's liveness ({@link Rules#agentUp}), B {@code $A == 0}, and no data is alerting.
     */
    public static String grafana(List<Effective> rules) {
        ArrayNode list = YAML.createArrayNode();
        for (Effective e : rules) {
            ObjectNode r = list.addObject();
            r.put("uid", "tailwatch-" + e.def().name().toLowerCase(Locale.ROOT));
            r.put("title", e.def().name());
            r.put("condition", "B");
            ArrayNode data = r.putArray("data");
            ObjectNode a = data.addObject();
            a.put("refId", "A");
            a.putObject("relativeTimeRange").put("from", 600).put("to", 0);
            a.put("datasourceUid", DATASOURCE_UID);
            // TailwatchDown reads the agent's liveness itself (the scrape target's up, or a pushing agent's
            // target_info): 0 is down, and no data at all (the target or the whole job gone) is alerting, so a
            // vanished agent alerts instead of resolving everything.
            boolean liveness = e.def() == Rules.TAILWATCH_DOWN;
            a.putObject("model").put("refId", "A").put("expr", liveness ? Rules.agentUp("") : e.expr().promql())
                    .put("instant", true).put("range", false);
            ObjectNode b = data.addObject();
            b.put("refId", "B");
            b.put("datasourceUid", "__expr__");
            b.putObject("model").put("refId", "B").put("type", "math").put("expression", liveness ? "$A == 0" : "$A == $A");
            r.put("for", Units.format(e.forDuration()));
            r.put("noDataState", liveness ? "Alerting" : "OK");
            r.put("execErrState", "Error");
            r.putObject("labels").put("severity", e.def().severity().label());
            ObjectNode notes = annotations(r, e, "$values.A.Value");
            String[] panel = PANELS.get(e.def().name());
            if (panel != null) {
                notes.put("__dashboardUid__", panel[0]);
                notes.put("__panelId__", panel[1]);
            }
        }
        ObjectNode group = YAML.createObjectNode();
        group.put("orgId", 1).put("name", "tailwatch").put("folder", "tailwatch").put("interval", "1m").set("rules", list);
        ObjectNode root = YAML.createObjectNode();
        root.put("apiVersion", 1);
        root.putArray("groups").add(group);
        return header("grafana") + write(root);
    }

    /** Writes block YAML: no document marker, quotes only where needed (and on numeric strings), one line per value. */
    private static final ObjectMapper YAML = new ObjectMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .disable(YAMLGenerator.Feature.SPLIT_LINES)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build());

    private static String header(String format) {
        return "# Generated by `tailwatch rules --format " + format + "` from the rule declarations in\n"
                + "# io.tailwatch.core.rules.Rules (thresholds from the config); do not edit by hand.\n";
    }

    private static ObjectNode annotations(ObjectNode rule, Effective e, String valueRef) {
        ObjectNode a = rule.putObject("annotations");
        a.put("summary", e.summaryTemplate(valueRef));
        a.put("description", e.descriptionTemplate(valueRef));
        a.put("runbook_url", e.runbook());
        return a;
    }

    private static String write(ObjectNode root) {
        try {
            return YAML.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The dashboard (uid) and panel (id) each rule's Grafana alert links to: where its signal is plotted. */
    public static final Map<String, String[]> PANELS = Map.ofEntries(
            Map.entry("SwapUsedHigh", new String[] {"tailwatch-host", "4"}),
            Map.entry("SwapGrowthUnderLoad", new String[] {"tailwatch-host", "4"}),
            Map.entry("MemoryPressureWarning", new String[] {"tailwatch-host", "3"}),
            Map.entry("MemoryPressureCritical", new String[] {"tailwatch-host", "3"}),
            Map.entry("ThermalThrottling", new String[] {"tailwatch-host", "7"}),
            Map.entry("EngineDown", new String[] {"tailwatch-engines", "2"}),
            Map.entry("ProbeErrors", new String[] {"tailwatch-engines", "13"}),
            Map.entry("TailLatencySpread", new String[] {"tailwatch-engines", "9"}),
            Map.entry("LatencyOverBaseline", new String[] {"tailwatch-engines", "10"}),
            Map.entry("TtftOverSlo", new String[] {"tailwatch-engines", "8"}),
            Map.entry("KvHeadroomLow", new String[] {"tailwatch-engines", "15"}),
            Map.entry("GpuMemoryLimitNear", new String[] {"tailwatch-host", "15"}),
            Map.entry("LaneSloMissed", new String[] {"tailwatch-engines", "22"}),
            Map.entry("LaneGoodputLow", new String[] {"tailwatch-engines", "21"}),
            Map.entry("LaneQueueWaitHigh", new String[] {"tailwatch-engines", "23"}),
            Map.entry("SamplerFailing", new String[] {"tailwatch-host", "10"}),
            Map.entry("OtlpExportFailing", new String[] {"tailwatch-host", "12"}),
            Map.entry("WebhookNotificationsDropped", new String[] {"tailwatch-host", "13"}),
            Map.entry("TailwatchDown", new String[] {"tailwatch-host", "14"}));
}
