package io.tailwatch.core.host;

import java.time.Duration;

/** Outcome of one sampler run; {@code error} is null on success. */
public record SamplerResult(String name, boolean success, Duration duration, String error) {
}
