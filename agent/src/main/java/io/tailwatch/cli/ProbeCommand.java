package io.tailwatch.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.ProbeRequest;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.core.text.Columns;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Sends one synthetic streaming probe to an engine and prints what it measured. */
@Command(name = "probe", description = {"Send one synthetic streaming request to an engine and print its timings.",
        "Exit 0 when the probe succeeded, 1 when it failed, 2 on bad usage."})
public final class ProbeCommand extends PrintingCommand {

    @Option(names = "--url", required = true, paramLabel = "URL", description = "Engine base URL, e.g. http://127.0.0.1:11434.")
    String url;

    @Option(names = "--api", required = true, paramLabel = "API", completionCandidates = EngineApiNames.class,
            converter = EngineApiNames.class,
            description = "Engine API: ${COMPLETION-CANDIDATES}.")
    String api;

    @Option(names = "--model", paramLabel = "M", description = "Model to probe (default: the first loaded model).")
    String model;

    @Option(names = "--max-tokens", defaultValue = "32", paramLabel = "N", description = "Output tokens to ask for (default: ${DEFAULT-VALUE}).")
    int maxTokens;

    @Option(names = "--prompt-tokens", defaultValue = "64", paramLabel = "N", description = "Approximate prompt size in tokens (default: ${DEFAULT-VALUE}).")
    int promptTokens;

    @Option(names = "--temperature", defaultValue = "0", paramLabel = "T", description = "Sampling temperature (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--connect-timeout", defaultValue = "2s", converter = DurationConverter.class, paramLabel = "D",
            description = "Connect deadline (default: ${DEFAULT-VALUE}).")
    Duration connectTimeout;

    @Option(names = "--first-token-timeout", defaultValue = "30s", converter = DurationConverter.class, paramLabel = "D",
            description = "Deadline for the first token (default: ${DEFAULT-VALUE}).")
    Duration firstTokenTimeout;

    @Option(names = "--timeout", defaultValue = "50s", converter = DurationConverter.class, paramLabel = "D",
            description = "Deadline for the whole request (default: ${DEFAULT-VALUE}).")
    Duration totalTimeout;

    @Option(names = "--api-key-env", paramLabel = "VAR", description = "Environment variable holding the API key (sent as a bearer token).")
    String apiKeyEnv;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        URI uri;
        try {
            uri = URI.create(url);
            if (uri.getHost() == null || !(url.startsWith("http://") || url.startsWith("https://"))) {
                throw new IllegalArgumentException("must be http://HOST[:PORT] or https://...");
            }
        } catch (IllegalArgumentException e) {
            err.println("--url: " + e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        if (maxTokens < 1 || promptTokens < 1) {
            err.println("--max-tokens and --prompt-tokens must be at least 1");
            return TailwatchCommand.EXIT_CONFIG;
        }
        String apiKey = null;
        if (apiKeyEnv != null) {
            apiKey = System.getenv(apiKeyEnv);
            if (apiKey == null) {
                err.println("--api-key-env: variable " + apiKeyEnv + " is not set");
                return TailwatchCommand.EXIT_CONFIG;
            }
        }
        ProbeResult r;
        try (EngineClient c = EngineClients.create(api, uri, apiKey, connectTimeout)) {
            r = c.probe(new ProbeRequest(model, promptTokens, maxTokens, temperature, firstTokenTimeout,
                    totalTimeout));
        }
        // A probe that named no model (mlx_lm) is served by the server's --model, where its command line tells it
        String served = io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL.equals(r.model()) ? CapacitySupport.reportedModel(
                new EngineTarget(uri.getHost(), api, uri, null, null, false, connectTimeout), r.model()) : r.model();
        Map<String, Object> m = fields(r, served);
        if (json) {
            try {
                out.println(new ObjectMapper().registerModule(io.tailwatch.core.json.Json.timeModule())
                        .writerWithDefaultPrettyPrinter().writeValueAsString(m));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        } else {
            out.print(table(m));
        }
        return r.success() ? TailwatchCommand.EXIT_OK : TailwatchCommand.EXIT_FAILURE;
    }

    /** The documented JSON fields, in order; unknown figures are null ({@code model}: the model that served it). */
    static Map<String, Object> fields(ProbeResult r, String model) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", r.success());
        m.put("error_type", r.errorType());
        m.put("error_message", r.errorMessage());
        m.put("model", model);
        m.putAll(r.figures());
        m.put("max_chunk_gap_seconds", r.chunkGapsSeconds().stream().mapToDouble(Double::doubleValue).max().isPresent()
                ? r.chunkGapsSeconds().stream().mapToDouble(Double::doubleValue).max().getAsDouble() : null);
        return m;
    }

    static String table(Map<String, Object> m) {
        StringBuilder sb = new StringBuilder();
        int w = m.keySet().stream().mapToInt(Columns::width).max().orElse(10);
        for (Map.Entry<String, Object> e : m.entrySet()) {
            Object v = e.getValue();
            String text = v == null ? "-" : v instanceof Double d ? String.format(Locale.ROOT, "%.4f", d) : v.toString();
            sb.append(Columns.padRight(e.getKey(), w)).append("  ").append(text).append('\n');
        }
        return sb.toString();
    }
}
