package io.tailwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.tools.runbook.AgentClient;
import io.tailwatch.tools.runbook.AgentStatus;
import io.tailwatch.tools.runbook.StatusScreen;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** One screen of the running agent: alerts, host signals, engines, probe windows, worst first. */
@Command(name = "status", description = "Show the running agent's alerts, host signals, engines and probe windows, worst first.")
public final class StatusCommand extends AgentCommand {

    @Option(names = "--json", description = "Print the raw status and alerts as JSON.")
    boolean json;

    @Override
    protected int run(AgentClient client, PrintWriter out, PrintWriter err) throws IOException {
        JsonNode status = client.get("/api/v1/status");
        JsonNode alerts = client.get("/api/v1/alerts");
        if (json) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("status", status);
            doc.put("alerts", alerts.path("alerts"));
            out.println(Json.write(doc));
        } else {
            out.print(StatusScreen.render(agent.baseUrl.toString(), status, alerts, AgentStatus.signals(status)));
        }
        return TailwatchCommand.EXIT_OK;
    }
}
