package io.tailwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.tools.runbook.AgentClient;
import io.tailwatch.tools.runbook.AgentStatus;
import io.tailwatch.tools.runbook.Diagnosis;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Ranks the likely causes of the current symptoms, each with the figures that support it. */
@Command(name = "diagnose", description = "Rank the likely causes of the current symptoms from the running agent's evidence.")
public final class DiagnoseCommand extends AgentCommand {

    @Option(names = "--engine", paramLabel = "NAME", description = "Only this engine's windows and health.")
    String engine;

    @Option(names = "--json", description = "Print the ranked causes as JSON.")
    boolean json;

    @Override
    protected int run(AgentClient client, PrintWriter out, PrintWriter err) throws IOException {
        JsonNode status = client.get("/api/v1/status");
        Signals s = AgentStatus.signals(status);
        if (engine != null && s.engine(engine) == null && s.windows().stream().noneMatch(w -> w.engine().equals(engine))) {
            err.println("--engine: the agent reports no engine named '" + engine + "'");
            return TailwatchCommand.EXIT_CONFIG;
        }
        List<Diagnosis.Cause> causes = Diagnosis.rank(s, engine, AgentStatus.recentFailures(status));
        List<io.tailwatch.tools.runbook.ReadyVerdicts> ready = io.tailwatch.tools.runbook.ReadyVerdicts.of(status).stream()
                .filter(v -> engine == null || v.engine().equals(engine)).toList();
        if (json) {
            out.println(Json.write(java.util.Map.of("causes", causes, "readiness", ready)));
            return TailwatchCommand.EXIT_OK;
        }
        if (causes.isEmpty()) {
            out.println("No symptoms: swap, pressure, thermal, engine health and probe windows look normal.");
        }
        int i = 1;
        for (Diagnosis.Cause c : causes) {
            out.printf(Locale.ROOT, "%d. [%.2f] %s%n", i++, c.score(), c.title());
            for (String f : c.figures()) {
                out.println("     evidence: " + f);
            }
            out.println("     do: " + c.action());
            out.println("     runbook: " + c.runbook());
        }
        // The ranked causes come first; then what a router in front of each engine is told.
        for (io.tailwatch.tools.runbook.ReadyVerdicts v : ready) {
            out.println("Readiness of " + v.engine() + ": " + v.text());
        }
        return TailwatchCommand.EXIT_OK;
    }
}
