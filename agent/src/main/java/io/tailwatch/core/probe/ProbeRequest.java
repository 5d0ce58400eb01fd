package io.tailwatch.core.probe;

import java.time.Duration;

/**
 * One synthetic streaming request with the fixed client contract: the prompt is generated to about
 * {@code promptTokens} tokens with a random nonce (so prompt caches cannot help), streaming on,
 * usage requested. {@code model} null means the engine's first loaded model. The connect deadline is
 * the engine's, set once on its client ({@link EngineApi#client}), not per request.
 */
public record ProbeRequest(String model, int promptTokens, int maxTokens, double temperature,
                           Duration firstTokenTimeout, Duration totalTimeout) {
}
