package io.tailwatch.daemon.ready;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.testing.AgentProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Agents for the readiness tests: one engine named {@code llm} behind the agent's metering proxy, on loopback. */
final class ReadyAgents {
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();
    static final String SERVER_TOKEN = "server-token-7d1c";
    static final String READ_TOKEN = "ready-token-91ab";

    private ReadyAgents() {
    }

    /**
     * Starts an agent watching {@code engineUrl} as {@code llm} with a proxy, a server token and the read-only
     * token file; {@code extra} is appended to the engine's entry.
     */
    static AgentProcess start(Path dir, String id, String engineUrl, String extra) throws Exception {
        AgentProcess a = launch(dir, id, engineUrl, extra);
        a.awaitListening();
        return a;
    }

    /** As {@link #start}, without waiting for the listener (start several, then await each). */
    static AgentProcess launch(Path dir, String id, String engineUrl, String extra) throws Exception {
        Path d = Files.createDirectories(dir.resolve(id));
        Path serverToken = Files.writeString(d.resolve("server.token"), SERVER_TOKEN + "\n");
        Path readToken = Files.writeString(d.resolve("ready.token"), READ_TOKEN + "\n");
        Path cfg = Files.writeString(d.resolve("tailwatch.yaml"), "server:\n  listen: 127.0.0.1:0\n  auth_token_file: " + serverToken
                + "\nhost:\n  interval: 1s\nengines:\n  - name: llm\n    api: openai\n    url: " + engineUrl
                + "\n    scenarios: []\n    health:\n      interval: 1s\n    signals:\n      source: none\n"
                + "    proxy:\n      listen: 127.0.0.1:0\n      connection_rest: 0s\n" + extra);
        AgentProcess a = AgentProcess.start(Map.of(ReadinessMonitor.TOKEN_FILE_VARIABLE, readToken.toString(),
                "TAILWATCH_DATA_DIR", d.resolve("data").toString()), "run", "--config", cfg.toString());
        return a;
    }

    /** The port of the engine's proxy once it runs, else -1. */
    static int proxyPort(AgentProcess a) throws Exception {
        HttpResponse<String> r = a.get("/api/v1/status", "Authorization", "Bearer " + SERVER_TOKEN);
        if (r.statusCode() != 200) {
            return -1;
        }
        for (JsonNode p : Json.MAPPER.readTree(r.body()).path("proxies")) {
            if (p.path("engine").asText().equals("llm") && p.path("state").asText().equals("running")) {
                String listen = p.path("listen").asText();
                return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
            }
        }
        return -1;
    }

    /** GET /api/v1/engines/llm/ready with the read-only token. */
    static HttpResponse<String> ready(AgentProcess a) throws Exception {
        return a.get("/api/v1/engines/llm/ready", "Authorization", "Bearer " + READ_TOKEN);
    }

    /** A chat completion of {@code tokens} tokens whose prompt carries {@code mark}, through {@code port}. */
    static HttpResponse<String> chat(int port, String mark, int tokens) throws Exception {
        String body = "{\"model\":\"" + io.tailwatch.tools.sim.SimulatorOptions.DEFAULT_OPENAI_MODEL + "\",\"stream\":false,\"max_tokens\":" + tokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + mark + "\"}]}";
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
