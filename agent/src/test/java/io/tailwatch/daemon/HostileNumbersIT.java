package io.tailwatch.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.metrics.ProxyMetrics;
import io.tailwatch.metrics.SelfMetrics;
import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.FaultServer;
import io.tailwatch.testing.Promtool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token counts out of range, through a metering proxy of the real agent started by the release launcher
 * (24 MiB heap): a whole answer with {@code completion_tokens: -10}, two of 2^62 (their sum overflows a
 * long), a stream whose usage is -10, an Ollama stream with {@code eval_count: -50} and a count that is not
 * whole. Each is dropped where it enters and counted as rejected; every scrape after each stays whole and
 * passes promtool, and the output-token counter holds only the one good answer's 5 tokens.
 */
@EnabledOnOs(OS.LINUX)
class HostileNumbersIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    private static String json(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.getBytes().length
                + "\r\nConnection: close\r\n\r\n" + body;
    }

    /** The answer for the case the request names in its X-Case header. */
    private static void answer(String request, java.io.OutputStream out) throws Exception {
        String c = request.replaceAll("(?s).*\r\nX-Case: ([a-z0-9]+)\r\n.*", "$1");
        if (request.startsWith("GET")) {
            FaultServer.write(out, json("{\"object\":\"list\",\"data\":[{\"id\":\"m\"}]}"));
            return;
        }
        String usage = "{\"model\":\"m\",\"choices\":[{\"message\":{\"content\":\"hi\"}}],\"usage\":{\"prompt_tokens\":3,"
                + "\"completion_tokens\":%s}}";
        switch (c) {
            case "good" -> FaultServer.write(out, json(usage.formatted("5")));
            case "negative" -> FaultServer.write(out, json(usage.formatted("-10")));
            case "huge" -> FaultServer.write(out, json(usage.formatted(Long.toString(1L << 62))));
            case "fraction" -> FaultServer.write(out, json(usage.formatted("2.5")));
            case "beyondlong" -> FaultServer.write(out, json(usage.formatted("99999999999999999999999")));
            case "sse" -> {
                FaultServer.write(out, FaultServer.SSE_HEADERS.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
                FaultServer.write(out, FaultServer.chunk("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"));
                FaultServer.write(out, FaultServer.chunk("data: {\"choices\":[],\"usage\":{\"completion_tokens\":-10}}\n\n"
                        + "data: [DONE]\n\n"));
                FaultServer.write(out, "0\r\n\r\n");
            }
            default -> { // ollama
                FaultServer.write(out, FaultServer.NDJSON_HEADERS.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
                FaultServer.write(out, FaultServer.chunk("{\"model\":\"m\",\"done\":true,\"eval_count\":-50,"
                        + "\"prompt_eval_count\":-1,\"eval_duration\":-7}\n"));
                FaultServer.write(out, "0\r\n\r\n");
            }
        }
    }

    private static int proxyPort(AgentProcess agent) throws Exception {
        for (JsonNode p : Json.MAPPER.readTree(agent.get("/api/v1/status").body()).path("proxies")) {
            if (p.path("state").asText().equals("running")) {
                String listen = p.path("listen").asText();
                return Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
            }
        }
        return -1;
    }

    private static void assertWhole(AgentProcess agent, String after) throws Exception {
        HttpResponse<String> r = agent.get("/metrics");
        assertThat(r.statusCode()).as(after).isEqualTo(200);
        assertThat(r.body()).as(after).doesNotContain("Server Error").contains("tailwatch_build_info");
        Promtool.Result check = Promtool.run(r.body(), "check", "metrics");
        assertThat(check.output()).as(after).doesNotContain("error").doesNotContain("parsing");
        assertThat(r.body().lines().filter(l -> l.startsWith(ProxyMetrics.OUTPUT_TOKENS.prometheusName())))
                .as(after).allSatisfy(l -> assertThat(Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                        .isBetween(0.0, 5.0));
    }

    @Test
    void outOfRangeTokenCountsNeverReachACounterAndEveryScrapeStaysWhole() throws Exception {
        Promtool.path();
        try (FaultServer engine = new FaultServer(HostileNumbersIT::answer)) {
            Path config = dir.resolve("tailwatch.yaml");
            Files.writeString(config, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                    + "  - name: e\n    api: openai\n    url: http://127.0.0.1:" + engine.port() + "\n    scenarios: []\n"
                    + "    health:\n      interval: 1h\n    signals:\n      source: none\n"
                    + "    proxy:\n      listen: 127.0.0.1:0\n");
            try (AgentProcess agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", config.toString())) {
                agent.awaitListening();
                await().atMost(Duration.ofSeconds(30)).until(() -> proxyPort(agent) > 0);
                int port = proxyPort(agent);
                for (String c : List.of("good", "negative", "huge", "huge", "fraction", "beyondlong", "sse", "ollama")) {
                    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                                    + "/v1/chat/completions")).header("X-Case", c).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\"}")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(c).isEqualTo(200);
                    assertWhole(agent, "after " + c);
                }
                String rejected = SelfMetrics.INPUT_REJECTED.prometheusName();
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    String body = agent.get("/metrics").body();
                    assertThat(body).contains(rejected + "{tailwatch_input_field=\"completion_tokens\","
                            + "tailwatch_input_source=\"engine_stream\"} 6");
                    assertThat(body).contains(rejected + "{tailwatch_input_field=\"eval_count\","
                            + "tailwatch_input_source=\"engine_stream\"} 1");
                    assertThat(body).contains(rejected + "{tailwatch_input_field=\"eval_duration\","
                            + "tailwatch_input_source=\"engine_stream\"} 1");
                });
                assertWhole(agent, "at the end");
                String status = agent.get("/api/v1/status").body();
                JsonNode proxy = Json.MAPPER.readTree(status).path("proxies").path(0);
                assertThat(proxy.path("output_tokens").asLong()).as("only the good answer's tokens, and the SSE"
                        + " answer's one content chunk as an estimate").isBetween(5L, 6L);
                assertThat(agent.stderr()).contains("dropped completion_tokens from engine_stream");
                assertThat(agent.stderr().split("dropped completion_tokens from engine_stream", -1)).as("logged once").hasSize(2);
            }
        }
    }
}
