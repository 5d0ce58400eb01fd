package io.tailwatch.core.probe;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Outcome of one probe. A failed probe is data: {@code success} false with {@code errorType} one of
 * connect_refused, connect_timeout, first_token_timeout, total_timeout, http_&lt;status&gt;,
 * stream_error, malformed, cut, no_output (a stream that ended without an output token), _OTHER. Figures the
 * engine or the failure did not yield are null.
 *
 * @param tokenSource usage (server usage block), engine (engine's own counters) or estimate
 * @param responseModel the model the engine says answered, or null when it did not say
 * @param serverTtftSeconds the time to first token as the engine itself reports it (LM Studio's native chat
 *                          stats), or null where it reports none
 */
public record ProbeResult(boolean success, String errorType, String errorMessage, Instant startedAt, String model,
                          Double timeToHeadersSeconds, Double ttftSeconds, double e2eSeconds,
                          Double decodeTokensPerSecond, Long outputTokens, Long inputTokens, String tokenSource,
                          Long cachedTokens, Double serverPromptSeconds, Double serverDecodeTokensPerSecond,
                          Double loadSeconds, List<Double> chunkGapsSeconds, String responseModel,
                          Double serverTtftSeconds) {
    /** The longest response model name kept; a longer one is dropped (it would be a label value). */
    public static final int MAX_MODEL_NAME = 200;

    public ProbeResult {
        chunkGapsSeconds = chunkGapsSeconds == null ? List.of() : List.copyOf(chunkGapsSeconds);
        if (responseModel != null && (responseModel.isBlank() || responseModel.length() > MAX_MODEL_NAME)) {
            responseModel = null;
        }
    }

    /** Without the engine's own time to first token (the engine reports none). */
    public ProbeResult(boolean success, String errorType, String errorMessage, Instant startedAt, String model,
                       Double timeToHeadersSeconds, Double ttftSeconds, double e2eSeconds,
                       Double decodeTokensPerSecond, Long outputTokens, Long inputTokens, String tokenSource,
                       Long cachedTokens, Double serverPromptSeconds, Double serverDecodeTokensPerSecond,
                       Double loadSeconds, List<Double> chunkGapsSeconds, String responseModel) {
        this(success, errorType, errorMessage, startedAt, model, timeToHeadersSeconds, ttftSeconds, e2eSeconds,
                decodeTokensPerSecond, outputTokens, inputTokens, tokenSource, cachedTokens, serverPromptSeconds,
                serverDecodeTokensPerSecond, loadSeconds, chunkGapsSeconds, responseModel, null);
    }

    /** Without a response model (the engine did not name one). */
    public ProbeResult(boolean success, String errorType, String errorMessage, Instant startedAt, String model,
                       Double timeToHeadersSeconds, Double ttftSeconds, double e2eSeconds,
                       Double decodeTokensPerSecond, Long outputTokens, Long inputTokens, String tokenSource,
                       Long cachedTokens, Double serverPromptSeconds, Double serverDecodeTokensPerSecond,
                       Double loadSeconds, List<Double> chunkGapsSeconds) {
        this(success, errorType, errorMessage, startedAt, model, timeToHeadersSeconds, ttftSeconds, e2eSeconds,
                decodeTokensPerSecond, outputTokens, inputTokens, tokenSource, cachedTokens, serverPromptSeconds,
                serverDecodeTokensPerSecond, loadSeconds, chunkGapsSeconds, null);
    }

    /**
     * The measured figures under their JSON names (time_to_headers_seconds through server_ttft_seconds), in
     * the order the probe command and the status API print them; unknown figures are null.
     */
    public Map<String, Object> figures() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("time_to_headers_seconds", timeToHeadersSeconds());
        m.put("ttft_seconds", ttftSeconds());
        m.put("e2e_seconds", e2eSeconds());
        m.put("decode_tokens_per_second", decodeTokensPerSecond());
        m.put("output_tokens", outputTokens());
        m.put("input_tokens", inputTokens());
        m.put("token_source", tokenSource());
        m.put("cached_tokens", cachedTokens());
        m.put("server_prompt_seconds", serverPromptSeconds());
        m.put("server_decode_tokens_per_second", serverDecodeTokensPerSecond());
        m.put("load_seconds", loadSeconds());
        m.put("server_ttft_seconds", serverTtftSeconds());
        return m;
    }
}
