package io.tailwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.rules.Signals;
import io.tailwatch.tools.runbook.AgentClient;
import io.tailwatch.tools.runbook.StatusScreen;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** One screen of the running agent: alerts, host signals, engines, probe windows, worst first. */
@Command(name = "status", description = "Show the running agent's alerts, host signals, engines and probe windows, worst first.")
public final class StatusCommand implements Callable<Integer> {
    @Mixin
    AgentOptions agent;

    @Option(names = "--json", description = "Print the raw status and alerts as JSON.")
    boolean json;

    @Override
    public Integer call() {
        AgentClient client = agent.client();
        if (client == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        try {
            JsonNode status = client.get("/api/v1/status");
            JsonNode alerts = client.get("/api/v1/alerts");
            if (json) {
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("status", status);
                out.put("alerts", alerts.path("alerts"));
                System.out.println(Json.write(out));
            } else {
                System.out.print(StatusScreen.render(agent.baseUrl.toString(), status, alerts, signals(status)));
            }
            return TailwatchCommand.EXIT_OK;
        } catch (IOException e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        }
    }

    static Signals signals(JsonNode status) throws IOException {
        JsonNode s = status.path("alerts").path("signals");
        if (s.isMissingNode() || s.isNull()) {
            return Signals.EMPTY;
        }
        Signals sig = Json.MAPPER.treeToValue(s, Signals.class);
        return new Signals(sig.host() == null ? Signals.EMPTY.host() : sig.host(),
                sig.engines() == null ? java.util.List.of() : sig.engines(),
                sig.windows() == null ? java.util.List.of() : sig.windows());
    }
}
