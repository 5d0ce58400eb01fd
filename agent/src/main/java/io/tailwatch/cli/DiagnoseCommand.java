package io.tailwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.tools.runbook.AgentClient;
import io.tailwatch.tools.runbook.Diagnosis;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Ranks the likely causes of the current symptoms, each with the figures that support it. */
@Command(name = "diagnose", description = "Rank the likely causes of the current symptoms from the running agent's evidence.")
public final class DiagnoseCommand implements Callable<Integer> {
    @Mixin
    AgentOptions agent;

    @Option(names = "--engine", paramLabel = "NAME", description = "Only this engine's windows and health.")
    String engine;

    @Option(names = "--json", description = "Print the ranked causes as JSON.")
    boolean json;

    /** Per engine, the error classes of the failed last probes of its scenarios (from /api/v1/status). */
    static java.util.Map<String, List<String>> recentFailures(JsonNode status) {
        java.util.Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (JsonNode e : status.path("engines")) {
            List<String> types = new java.util.ArrayList<>();
            for (JsonNode sc : e.path("scenarios")) {
                JsonNode last = sc.path("last");
                if (last.isObject() && !last.path("success").asBoolean(true) && last.path("error_type").isTextual()) {
                    types.add(last.path("error_type").asText());
                }
            }
            if (!types.isEmpty() && e.path("name").isTextual()) {
                out.put(e.path("name").asText(), types);
            }
        }
        return out;
    }

    @Override
    public Integer call() {
        AgentClient client = agent.client();
        if (client == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        try {
            JsonNode status = client.get("/api/v1/status");
            Signals s = StatusCommand.signals(status);
            if (engine != null && s.engine(engine) == null && s.windows().stream().noneMatch(w -> w.engine().equals(engine))) {
                System.err.println("--engine: the agent reports no engine named '" + engine + "'");
                return TailwatchCommand.EXIT_CONFIG;
            }
            List<Diagnosis.Cause> causes = Diagnosis.rank(s, engine, recentFailures(status));
            if (json) {
                System.out.println(Json.write(java.util.Map.of("causes", causes)));
                return TailwatchCommand.EXIT_OK;
            }
            if (causes.isEmpty()) {
                System.out.println("No symptoms: swap, pressure, thermal, engine health and probe windows look normal.");
                return TailwatchCommand.EXIT_OK;
            }
            int i = 1;
            for (Diagnosis.Cause c : causes) {
                System.out.printf(Locale.ROOT, "%d. [%.2f] %s%n", i++, c.score(), c.title());
                for (String f : c.figures()) {
                    System.out.println("     evidence: " + f);
                }
                System.out.println("     do: " + c.action());
                System.out.println("     runbook: " + c.runbook());
            }
            return TailwatchCommand.EXIT_OK;
        } catch (IOException e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
    }
}
