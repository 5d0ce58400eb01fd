package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.daemon.alerts.RuleExport;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Prints the alert rules, with the config's thresholds, for Prometheus, Grafana or people. */
@Command(name = "rules", description = "Print the alert rules: as a Prometheus rules file, a Grafana alerting provisioning file, or a table.")
public final class RulesCommand extends PrintingCommand {

    @Mixin
    ConfigOptions options;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "prometheus, grafana or table (default: ${DEFAULT-VALUE}).")
    String format;

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        Config config = options.loadOrReport();
        if (config == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        switch (format) {
            case "prometheus" -> out.print(RuleExport.prometheus(config));
            case "grafana" -> out.print(RuleExport.grafana(config));
            case "table" -> {
                out.printf("%-28s %-9s %-8s %-12s %-6s %s%n", "RULE", "SEVERITY", "ENABLED", "THRESHOLD", "FOR", "EXPRESSION");
                for (RuleExport.Effective e : RuleExport.effective(config.rules(), RuleExport.interactiveScenarios(config))) {
                    RuleDef d = e.def();
                    out.printf("%-28s %-9s %-8s %-12s %-6s %s%n", d.name(), d.severity().label(), "yes",
                            e.threshold() == null ? "-" : d.thresholdKind().format(e.threshold()),
                            io.tailwatch.core.units.Units.format(e.forDuration()), e.expr().promql());
                }
                for (RuleDef d : Rules.ALL) {
                    if (!config.rules().of(d.name()).enabled()) {
                        out.printf("%-28s %-9s %-8s%n", d.name(), d.severity().label(), "no");
                    }
                }
            }
            default -> {
                err.println("--format: expected prometheus, grafana or table, got '" + format + "'");
                return TailwatchCommand.EXIT_CONFIG;
            }
        }
        return TailwatchCommand.EXIT_OK;
    }
}
