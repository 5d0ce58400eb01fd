package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.rules.RuleDef;
import io.tailwatch.core.rules.Rules;
import io.tailwatch.core.text.Columns;
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
                out.print(row("RULE", "SEVERITY", "ENABLED", "THRESHOLD", "FOR", "EXPRESSION"));
                for (RuleExport.Effective e : RuleExport.effective(config.rules(), RuleExport.interactiveScenarios(config))) {
                    RuleDef d = e.def();
                    out.print(row(d.name(), d.severity().label(), "yes",
                            e.threshold() == null ? "-" : d.thresholdKind().format(e.threshold()),
                            io.tailwatch.core.units.Units.format(e.forDuration()), e.expr().promql()));
                }
                for (RuleDef d : Rules.ALL) {
                    if (!config.rules().of(d.name()).enabled()) {
                        out.print((Columns.padRight(d.name(), 28) + " " + Columns.padRight(d.severity().label(), 9) + " " + Columns.padRight("no", 8))
                                + "\n");
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

    /** One line of the table: columns of 28, 9, 8, 12 and 6 terminal columns, then the expression. */
    private static String row(String rule, String severity, String enabled, String threshold, String forDuration, String expr) {
        return Columns.padRight(rule, 28) + " " + Columns.padRight(severity, 9) + " " + Columns.padRight(enabled, 8) + " "
                + Columns.padRight(threshold, 12) + " " + Columns.padRight(forDuration, 6) + " " + expr + "\n";
    }
}
