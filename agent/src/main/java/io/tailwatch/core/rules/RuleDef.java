package io.tailwatch.core.rules;

import io.tailwatch.core.units.Units;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * One alert rule, declared once. The expression (built for a threshold) is evaluated by the agent
 * and rendered as PromQL; summary and description are templates over {@code {value}},
 * {@code {threshold}}, {@code {for}} and label names such as {@code {engine}}.
 *
 * @param thresholdKind null when the rule has no threshold (its condition is fixed)
 */
public record RuleDef(String name, Severity severity, ValueKind valueKind, ValueKind thresholdKind,
                      Double defaultThreshold, Duration defaultFor, String summary, String description,
                      Function<Params, Expr> expression) {

    /** What an expression is built from: the configured threshold and the interactive scenario names. */
    public record Params(double threshold, List<String> interactiveScenarios) {
        public Params {
            interactiveScenarios = List.copyOf(interactiveScenarios);
        }
    }

    /** Template placeholders and the label each one reads. */
    private static final Map<String, String> PLACEHOLDERS = Map.of("engine", Rules.ENGINE, "model", Rules.MODEL,
            "scenario", Rules.SCENARIO, "sampler", Rules.SAMPLER, "outcome", Rules.WEBHOOK_OUTCOME, "lane", Rules.LANE);

    public RuleDef {
        Objects.requireNonNull(name, "name");
        if ((thresholdKind == null) != (defaultThreshold == null)) {
            throw new IllegalArgumentException(name + ": threshold kind and default go together");
        }
    }

    public boolean hasThreshold() {
        return thresholdKind != null;
    }

    /** Where the on-call runbook explains this alert, relative to the project. */
    public String runbook() {
        return runbook(null);
    }

    /** The runbook link: {@code base#Name} when a base URL is configured, else the relative path. */
    public String runbook(String baseUrl) {
        return (baseUrl == null || baseUrl.isEmpty() ? "docs/runbook.md" : baseUrl) + "#" + name;
    }

    public Expr build(Params params) {
        return expression.apply(params);
    }

    /** Fills a template with live values, as the agent reports it. */
    public String render(String template, double value, Map<String, String> labels, Double threshold, Duration forDuration) {
        String out = template.replace("{value}", valueKind.format(value))
                .replace("{threshold}", threshold == null ? "" : thresholdKind.format(threshold))
                .replace("{for}", Units.format(forDuration));
        for (Map.Entry<String, String> l : PLACEHOLDERS.entrySet()) {
            out = out.replace("{" + l.getKey() + "}", labels.getOrDefault(l.getValue(), "?"));
        }
        return out;
    }

    /** The same template for Prometheus/Grafana: value and labels become Go template actions. */
    public String renderTemplate(String template, String valueRef, Double threshold, Duration forDuration) {
        String out = template.replace("{value}", valueKind.template(valueRef))
                .replace("{threshold}", threshold == null ? "" : thresholdKind.format(threshold))
                .replace("{for}", Units.format(forDuration));
        for (Map.Entry<String, String> l : PLACEHOLDERS.entrySet()) {
            out = out.replace("{" + l.getKey() + "}", "{{ $labels." + l.getValue() + " }}");
        }
        return out;
    }
}
