package io.tailwatch.probe;

import java.time.Instant;
import java.util.List;

/**
 * Outcome of one probe. A failed probe is data: {@code success} false with {@code errorType} one of
 * connect_refused, connect_timeout, first_token_timeout, total_timeout, http_&lt;status&gt;,
 * stream_error, malformed, cut, _OTHER. Figures the engine or the failure did not yield are null.
 *
 * @param tokenSource usage (server usage block), engine (engine's own counters) or estimate
 */
public record ProbeResult(boolean success, String errorType, String errorMessage, Instant startedAt, String model,
                          Double timeToHeadersSeconds, Double ttftSeconds, double e2eSeconds,
                          Double decodeTokensPerSecond, Long outputTokens, Long inputTokens, String tokenSource,
                          Long cachedTokens, Double serverPromptSeconds, Double serverDecodeTokensPerSecond,
                          Double loadSeconds, List<Double> chunkGapsSeconds) {
    public ProbeResult {
        chunkGapsSeconds = chunkGapsSeconds == null ? List.of() : List.copyOf(chunkGapsSeconds);
    }
}
