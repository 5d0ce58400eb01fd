package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;
import static io.tailwatch.metrics.AttributeDef.optional;

import io.tailwatch.metrics.AttrValues.Operation;
import io.tailwatch.metrics.AttrValues.Percentile;
import io.tailwatch.metrics.AttrValues.SkipReason;
import io.tailwatch.metrics.AttrValues.TokenModality;
import io.tailwatch.metrics.AttrValues.TokenSource;
import io.tailwatch.metrics.AttrValues.TokenType;
import java.util.List;

/** Synthetic probe results: OpenTelemetry GenAI client metrics and the rolling windows the rules read. */
public final class ProbeMetrics {
    private ProbeMetrics() {
    }

    /** The semantic conventions' recommended boundaries plus edges at the 0.5 s and 1 s SLOs. */
    public static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.5, 0.64, 1.0,
            1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);
    public static final List<Double> TOKEN_BUCKETS = List.of(1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0,
            65536.0, 262144.0, 1048576.0);
    public static final List<Double> CHUNK_BUCKETS = List.of(0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25,
            0.5, 0.75, 1.0, 2.5, 5.0, 10.0);

    /**
     * The semantic conventions' advice (explicit bucket boundaries) for the GenAI client histograms, v1.41.0:
     * durations (operation, time to first chunk, time per output chunk) 0.01 s doubling to 81.92 s, tokens 1
     * quadrupling to 64 Mi. OTLP carries these; /metrics keeps the buckets above (see docs/metrics.md).
     */
    public static final List<Double> SEMCONV_DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64,
            1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);
    public static final List<Double> SEMCONV_TOKEN_BUCKETS = List.of(1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0,
            16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0, 67108864.0);

    /** The explicit buckets a histogram has over OTLP: the semconv advice where it gives one, else the catalog's. */
    public static List<Double> otlpBuckets(MetricDef def) {
        String n = def.name();
        if (n.startsWith("gen_ai.client.") && "{token}".equals(def.unit())) {
            return SEMCONV_TOKEN_BUCKETS;
        }
        if (n.startsWith("gen_ai.client.") && "s".equals(def.unit())) {
            return SEMCONV_DURATION_BUCKETS;
        }
        return def.buckets();
    }

    static final AttributeDef ENGINE = free(AttrKeys.ENGINE, "Configured engine name");
    static final AttributeDef SCENARIO = free(AttrKeys.SCENARIO, "Probe scenario name");
    static final AttributeDef OPERATION = oneOf(AttrKeys.OPERATION, "GenAI operation", Operation.class);
    static final AttributeDef PROVIDER = free(AttrKeys.PROVIDER,
            "Engine kind: ollama, mlx_lm, lm_studio, llama_cpp, vllm, openai");
    static final AttributeDef REQUEST_MODEL = free(AttrKeys.MODEL, "Model the probe asked for; a probe that names "
            + "none (mlx_lm) carries the model the server was started with, or unknown");
    static final AttributeDef RESPONSE_MODEL = optional(AttrKeys.RESPONSE_MODEL,
            "Model the engine says answered (when it names one; never mlx_lm's echoed default_model)");
    static final AttributeDef SERVER_ADDRESS = free(AttrKeys.SERVER_ADDRESS, "Engine host");
    static final AttributeDef SERVER_PORT = free(AttrKeys.SERVER_PORT, "Engine port");
    static final AttributeDef ERROR_TYPE = optional(AttrKeys.ERROR_TYPE,
            "Failure class (failures only): connect_refused, connect_timeout, first_token_timeout, total_timeout, http_<status>, stream_error, malformed, cut, no_output, _OTHER");

    public static final MetricDef OPERATION_DURATION = MetricDef.histogram("gen_ai.client.operation.duration", "s",
            "End-to-end duration of a synthetic probe request.", DURATION_BUCKETS,
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT, ERROR_TYPE);

    public static final MetricDef TIME_TO_FIRST_CHUNK = MetricDef.histogram("gen_ai.client.operation.time_to_first_chunk", "s",
            "Time from sending the request to the first chunk with non-empty content or reasoning.", DURATION_BUCKETS,
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT);

    public static final MetricDef TIME_PER_OUTPUT_CHUNK = MetricDef.histogram("gen_ai.client.operation.time_per_output_chunk", "s",
            "Time between consecutive output chunks after the first.", CHUNK_BUCKETS,
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT);

    public static final MetricDef TOKEN_USAGE = MetricDef.histogram("gen_ai.client.token.usage", "{token}",
            "Tokens per probe request.", TOKEN_BUCKETS,
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT,
            oneOf(AttrKeys.TOKEN_TYPE, "input or output", TokenType.class),
            oneOf(AttrKeys.TOKEN_SOURCE, "usage: server usage; engine: engine counters; estimate: estimated", TokenSource.class));

    // ---- semantic-conventions-genai names (OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental[/dup]) ----

    /** A 1.41.0 metric under its semantic-conventions-genai name: "Attributes: no change", as the migration guide says. */
    private static MetricDef renamed(MetricDef v141, String name, String description) {
        return new MetricDef(name, v141.unit(), v141.instrument(), description, v141.attributes(), v141.buckets());
    }

    public static final MetricDef INFERENCE_DURATION = renamed(OPERATION_DURATION, "gen_ai.client.inference.duration",
            "End-to-end duration of a synthetic probe request (an inference operation).");

    public static final MetricDef INFERENCE_TIME_TO_FIRST_CHUNK = renamed(TIME_TO_FIRST_CHUNK,
            "gen_ai.client.inference.time_to_first_chunk", TIME_TO_FIRST_CHUNK.description());

    public static final MetricDef INFERENCE_TIME_PER_OUTPUT_CHUNK = renamed(TIME_PER_OUTPUT_CHUNK,
            "gen_ai.client.inference.time_per_output_chunk", TIME_PER_OUTPUT_CHUNK.description());

    static final AttributeDef TOKEN_SOURCE = oneOf(AttrKeys.TOKEN_SOURCE,
            "usage: server usage; engine: engine counters; estimate: estimated", TokenSource.class);

    public static final MetricDef INFERENCE_INPUT_TOKENS = MetricDef.histogram("gen_ai.client.inference.operation.input_tokens", "{token}",
            "Input (prompt) tokens per successful probe request.", TOKEN_BUCKETS,
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT, TOKEN_SOURCE);

    public static final MetricDef INFERENCE_OUTPUT_TOKENS = MetricDef.histogram("gen_ai.client.inference.operation.output_tokens", "{token}",
            "Output (completion) tokens per successful probe request.", TOKEN_BUCKETS,
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT, TOKEN_SOURCE);

    static final AttributeDef TOKEN_MODALITY = oneOf(AttrKeys.TOKEN_MODALITY, "Modality of the tokens: text", TokenModality.class);

    public static final MetricDef USAGE_INPUT_TOKENS = MetricDef.counter("gen_ai.client.inference.usage.input_tokens", "{token}",
            "Input (prompt) tokens of the successful probe requests since the agent started.",
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT, TOKEN_MODALITY, TOKEN_SOURCE);

    public static final MetricDef USAGE_OUTPUT_TOKENS = MetricDef.counter("gen_ai.client.inference.usage.output_tokens", "{token}",
            "Output (completion) tokens of the successful probe requests since the agent started.",
            ENGINE, SCENARIO, OPERATION, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, SERVER_ADDRESS, SERVER_PORT, TOKEN_MODALITY, TOKEN_SOURCE);

    public static final MetricDef PROBE_SUCCESS = MetricDef.gauge("tailwatch.probe.success", "{bool}",
            "1 when the scenario's last probe succeeded, 0 when it failed.", ENGINE, SCENARIO);

    public static final MetricDef DECODE_RATE = MetricDef.gauge("tailwatch.probe.decode.rate", "{token}/s",
            "Decode tokens per second of the scenario's last successful probe: (output tokens - 1) / (e2e - TTFT).",
            ENGINE, SCENARIO);

    public static final MetricDef ENGINE_DECODE_RATE = MetricDef.gauge("tailwatch.probe.engine.decode.rate", "{token}/s",
            "Generation speed of the scenario's last successful probe as the engine itself reports it in its answer "
                    + "(LM Studio's stats.tokens_per_second, llama.cpp's timings.predicted_per_second, Ollama's "
                    + "eval_count / eval_duration), beside the agent's own tailwatch.probe.decode.rate. Absent where the "
                    + "engine reports none.",
            ENGINE, SCENARIO);

    public static final MetricDef ENGINE_TTFT = MetricDef.gauge("tailwatch.probe.engine.ttft", "s",
            "Time to first token of the scenario's last successful probe as the engine itself reports it (LM Studio "
                    + "0.4's native chat: stats.time_to_first_token_seconds), beside the agent's wire measurement "
                    + "(gen_ai.client.operation.time_to_first_chunk). Absent where the engine reports none.",
            ENGINE, SCENARIO);

    public static final MetricDef PROBES_SKIPPED = MetricDef.counter("tailwatch.probe.skipped", "{probe}",
            "Probes not sent, by reason.", ENGINE,
            oneOf(AttrKeys.SKIP_REASON, "Why the probe was skipped", SkipReason.class));

    static final AttributeDef PERCENTILE = oneOf(AttrKeys.PERCENTILE, "Nearest-rank percentile over the window", Percentile.class);

    public static final MetricDef WINDOW_E2E = MetricDef.gauge("tailwatch.probe.window.e2e", "s",
            "End-to-end latency percentiles of successful probes over the rolling window (nearest rank). A gauge per percentile, not a summary: no quantile label.",
            ENGINE, REQUEST_MODEL, SCENARIO, PERCENTILE);

    public static final MetricDef WINDOW_TTFT = MetricDef.gauge("tailwatch.probe.window.ttft", "s",
            "Time-to-first-token percentiles of successful probes over the rolling window (nearest rank).",
            ENGINE, REQUEST_MODEL, SCENARIO, PERCENTILE);

    public static final MetricDef WINDOW_ERROR_RATIO = MetricDef.gauge("tailwatch.probe.window.error.ratio", "1",
            "Failed probes / all probes over the rolling window.", ENGINE, REQUEST_MODEL, SCENARIO);

    public static final MetricDef WINDOW_SAMPLES = MetricDef.gauge("tailwatch.probe.window.samples", "{probe}",
            "Probes in the rolling window.", ENGINE, REQUEST_MODEL, SCENARIO);

    public static final List<MetricDef> ALL = List.of(OPERATION_DURATION, TIME_TO_FIRST_CHUNK, TIME_PER_OUTPUT_CHUNK,
            TOKEN_USAGE, INFERENCE_DURATION, INFERENCE_TIME_TO_FIRST_CHUNK, INFERENCE_TIME_PER_OUTPUT_CHUNK,
            INFERENCE_INPUT_TOKENS, INFERENCE_OUTPUT_TOKENS, USAGE_INPUT_TOKENS, USAGE_OUTPUT_TOKENS, PROBE_SUCCESS, DECODE_RATE, ENGINE_DECODE_RATE, ENGINE_TTFT, PROBES_SKIPPED, WINDOW_E2E, WINDOW_TTFT, WINDOW_ERROR_RATIO,
            WINDOW_SAMPLES);
}
