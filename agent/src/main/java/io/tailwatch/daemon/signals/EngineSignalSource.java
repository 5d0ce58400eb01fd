package io.tailwatch.daemon.signals;

import java.time.Duration;

/**
 * One place an engine's own figures come from (one file per kind). Implementations keep no threads;
 * they are called from one polling thread at a time, and may keep state between reads (e.g. the last
 * counter values to turn a histogram into a recent mean).
 */
public interface EngineSignalSource {
    /** llamacpp_slots, prometheus, mlx_vlm_json, health_queue or header_estimate (the signal.source attribute). */
    String kind();

    /** The endpoint read, for status and logs (e.g. GET /metrics). */
    String describe();

    /**
     * Reads the figures within {@code deadline}. An empty reading means nothing to report right now;
     * a broken endpoint or body is a {@link SignalFailure}, never a zero.
     */
    EngineSignals read(Duration deadline) throws SignalFailure;
}
