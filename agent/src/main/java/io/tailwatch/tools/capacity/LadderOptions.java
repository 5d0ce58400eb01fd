package io.tailwatch.tools.capacity;

import java.time.Duration;
import java.util.List;

/**
 * Parameters of one concurrency ladder.
 *
 * @param requestsPerLevel fixed request count per step, or null for max(5, 3 x concurrency)
 * @param maxRequests      cap on all requests including the warm-up; a step that would pass it does not run
 * @param requestTimeout   total deadline of one request (also cut to what is left of maxDuration)
 */
public record LadderOptions(String model, List<Integer> levels, Integer requestsPerLevel, int promptTokens,
                            int maxTokens, double temperature, Duration maxDuration, int maxRequests,
                            boolean continueAfterStop, StopRules rules, Duration firstTokenTimeout,
                            Duration requestTimeout) {
    public static final int MAX_CONCURRENCY = 256;

    public LadderOptions {
        if (levels == null || levels.isEmpty()) {
            throw new IllegalArgumentException("--levels: give at least one concurrency level");
        }
        int prev = 0;
        for (int l : levels) {
            if (l < 1 || l > MAX_CONCURRENCY) {
                throw new IllegalArgumentException("--levels: each level must be in 1.." + MAX_CONCURRENCY + ", got " + l);
            }
            if (l <= prev) {
                throw new IllegalArgumentException("--levels: levels must increase, got " + levels);
            }
            prev = l;
        }
        levels = List.copyOf(levels);
        if (requestsPerLevel != null && requestsPerLevel < 1) {
            throw new IllegalArgumentException("--requests-per-level must be >= 1, got " + requestsPerLevel);
        }
        if (promptTokens < 1 || maxTokens < 1) {
            throw new IllegalArgumentException("--prompt-tokens and --max-tokens must be >= 1");
        }
        if (maxDuration == null || maxDuration.isNegative() || maxDuration.isZero()) {
            throw new IllegalArgumentException("--max-duration must be a positive duration");
        }
        if (maxRequests < 1) {
            throw new IllegalArgumentException("--max-requests must be >= 1, got " + maxRequests);
        }
    }

    /** The same options for model {@code m} (the engine's default when the command was given none). */
    public LadderOptions withModel(String m) {
        return new LadderOptions(m, levels, requestsPerLevel, promptTokens, maxTokens, temperature, maxDuration,
                maxRequests, continueAfterStop, rules, firstTokenTimeout, requestTimeout);
    }

    /**
     * The parameters a report states (summary.json and report.md): levels, requests per level, request
     * shape, caps and deadlines, and whether the preflight gate was overridden ({@code forced}).
     */
    public java.util.Map<String, Object> parameters(boolean forced) {
        java.util.Map<String, Object> params = new java.util.LinkedHashMap<>();
        params.put("levels", levels);
        params.put("requests_per_level", requestsPerLevel == null ? "max(5, 3 x level)" : requestsPerLevel);
        params.put("prompt_tokens", promptTokens);
        params.put("max_tokens", maxTokens);
        params.put("temperature", temperature);
        params.put("max_duration", io.tailwatch.core.units.Units.format(maxDuration));
        params.put("max_requests", maxRequests);
        params.put("request_timeout", io.tailwatch.core.units.Units.format(requestTimeout));
        params.put("continue_after_stop", continueAfterStop);
        params.put("forced", forced);
        return params;
    }

    public int requestsAt(int concurrency) {
        return requestsPerLevel != null ? requestsPerLevel : Math.max(5, 3 * concurrency);
    }
}
