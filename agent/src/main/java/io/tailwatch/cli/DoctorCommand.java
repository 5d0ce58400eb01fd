package io.tailwatch.cli;

import io.tailwatch.core.config.Config;
import io.tailwatch.tools.doctor.Doctor;
import io.tailwatch.tools.doctor.DoctorReport;
import io.tailwatch.tools.doctor.ToolRunner;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Cross-checks every native host reading against the OS's own tools. */
@Command(name = "doctor", description = {
        "Cross-check every host signal against the OS's own tools.",
        "Reads each signal natively, as the agent does, and beside the same signal from the OS's tools",
        "(macOS: sysctl, vm_stat, pmset -g therm, memory_pressure, notifyutil, footprint; Linux: free -b,",
        "/proc/meminfo; both: ps), each against a stated tolerance.",
        "Exit 0 when all agree, 1 on any disagreement or impossible reading,",
        "2 on a bad config."})
public final class DoctorCommand extends PrintingCommand {

    @Mixin
    ConfigOptions options;

    @Option(names = "--with-sudo", description = {
            "macOS: also compare power per rail and GPU frequency with one 'sudo -n powermetrics' sample",
            "(never prompts: run 'sudo -v' first; without cached credentials the check shows n/a)."})
    boolean withSudo;

    @Option(names = "--json", description = "Print every check and sampler in full as JSON (same exit status).")
    boolean json;

    @Option(names = "--fleet", paramLabel = "FILE", description = {
            "Instead of the host checks: check the push path's fleet side, the Prometheus config (its otlp: block:",
            "translation strategy, promoted resource attributes) or Collector config in FILE (repeatable), and",
            "this agent's OTLP temporality. Exit 1 on any warning."})
    java.util.List<java.nio.file.Path> fleet;

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        if (fleet != null && !fleet.isEmpty()) {
            java.util.List<String> warnings = io.tailwatch.tools.doctor.FleetCheck.warnings(fleet, System.getenv());
            for (String w : warnings) {
                out.println("WARN  " + w.replaceAll("\\p{Cntrl}", " ")); // file names and YAML errors are outside text
            }
            out.println(warnings.isEmpty() ? "fleet: the push path is set as the dashboards and rules need"
                    : "fleet: " + warnings.size() + " warning(s)");
            return warnings.isEmpty() ? TailwatchCommand.EXIT_OK : TailwatchCommand.EXIT_FAILURE;
        }
        Config config = options.loadOrReport();
        if (config == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        DoctorReport report = Doctor.run(config, ToolRunner.system(Duration.ofSeconds(10)), withSudo);
        out.print(json ? report.json() : report.render());
        return report.failed() ? TailwatchCommand.EXIT_FAILURE : TailwatchCommand.EXIT_OK;
    }
}
