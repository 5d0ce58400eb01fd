package io.tailwatch.daemon.ready;

import java.time.Duration;
import java.time.Instant;

/**
 * Everything the verdict of one engine is made from, as known at {@code at}. Every figure is null when it
 * is unknown (never 0 for unknown); {@link Readiness#evaluate} reads nothing else, so whoever knows a
 * better figure (an engine that reports its batch size, its loading state) can fill it in here.
 *
 * @param engine          the engine's state from its last health check
 * @param slots           requests the engine generates at once (llama.cpp's slots, 1 for a serial server,
 *                        a batching engine's batch size), or null when it does not say
 * @param slotsSource     where {@code slots} comes from, in words
 * @param inFlight        requests in flight through the engine's metering proxy (exact at every request's
 *                        start and end), or null without a proxy
 * @param running         requests the engine reports running
 * @param waiting         requests the engine reports queued
 * @param queueWaitSeconds how long requests wait before the engine starts them (measured, or the header-time
 *                        estimate: {@code queueWaitSource})
 * @param ttftSeconds     time to first token of the latest interactive probe that is recent enough;
 *                        {@link Double#POSITIVE_INFINITY} when that probe got no first token in time
 * @param ttftSloSeconds  the TTFT SLO (the TtftOverSlo threshold), always set
 * @param baselineSeconds the engine's single-request end-to-end p95 (what one request costs when alone)
 * @param memoryPressure  0 normal, 1 warning, 2 critical
 * @param swapGrowthBytes swap used now minus one host sample ago
 * @param gpuShare        the fullest loaded model's footprint plus KV cache over the GPU working-set limit
 * @param thermalLevel    thermal pressure level (2 or more: heavy)
 * @param cpuSpeedLimit   the CPU speed limit as a ratio of full speed
 * @param engineRefresh   how often the engine state is checked (the health interval)
 * @param queueRefresh    how soon a queue figure can change (0 with a proxy: every request; else the signal interval)
 * @param hostRefresh     the host sampling interval
 */
public record ReadinessInput(Instant at, EngineState engine, Integer slots, String slotsSource, Integer inFlight,
                             Double running, Double waiting, Double queueWaitSeconds, String queueWaitSource,
                             Double ttftSeconds, double ttftSloSeconds, Double baselineSeconds, Double memoryPressure,
                             Double swapGrowthBytes, Double gpuShare, Double thermalLevel, Double cpuSpeedLimit,
                             Duration engineRefresh, Duration queueRefresh, Duration hostRefresh) {

    /** The engine's state as the verdict reads it. */
    public enum EngineState {
        UP, LOADING, DOWN, UNKNOWN
    }

    public ReadinessInput {
        if (at == null || engine == null) {
            throw new IllegalArgumentException("a readiness input needs a time and an engine state");
        }
        if (!(ttftSloSeconds > 0)) {
            throw new IllegalArgumentException("ttftSloSeconds must be positive");
        }
        slots = slots == null || slots < 1 ? null : slots;
        inFlight = inFlight == null || inFlight < 0 ? null : inFlight;
        running = figure(running);
        waiting = figure(waiting);
        queueWaitSeconds = figure(queueWaitSeconds);
        ttftSeconds = ttftSeconds == null || ttftSeconds.isNaN() || ttftSeconds < 0 ? null : ttftSeconds;
        baselineSeconds = baselineSeconds == null || !(baselineSeconds > 0) || baselineSeconds.isInfinite() ? null : baselineSeconds;
        memoryPressure = figure(memoryPressure);
        swapGrowthBytes = swapGrowthBytes == null || swapGrowthBytes.isNaN() || swapGrowthBytes.isInfinite() ? null : swapGrowthBytes;
        gpuShare = figure(gpuShare);
        thermalLevel = figure(thermalLevel);
        cpuSpeedLimit = figure(cpuSpeedLimit);
        engineRefresh = engineRefresh == null ? Duration.ofSeconds(15) : engineRefresh;
        queueRefresh = queueRefresh == null ? Duration.ofSeconds(15) : queueRefresh;
        hostRefresh = hostRefresh == null ? Duration.ofSeconds(15) : hostRefresh;
    }

    /** Negative, NaN and infinite figures are not figures. */
    private static Double figure(Double d) {
        return d == null || d.isNaN() || d.isInfinite() || d < 0 ? null : d;
    }

    /** An input with only the engine state and the SLO known (tests and a start from nothing). */
    public static ReadinessInput of(Instant at, EngineState engine, double ttftSloSeconds) {
        return new ReadinessInput(at, engine, null, null, null, null, null, null, null, null, ttftSloSeconds, null,
                null, null, null, null, null, null, null, null);
    }

    public ReadinessInput withQueue(Integer slots, String slotsSource, Integer inFlight, Double running, Double waiting) {
        return new ReadinessInput(at, engine, slots, slotsSource, inFlight, running, waiting, queueWaitSeconds,
                queueWaitSource, ttftSeconds, ttftSloSeconds, baselineSeconds, memoryPressure, swapGrowthBytes, gpuShare,
                thermalLevel, cpuSpeedLimit, engineRefresh, queueRefresh, hostRefresh);
    }

    public ReadinessInput withLatency(Double queueWaitSeconds, String queueWaitSource, Double ttftSeconds, Double baselineSeconds) {
        return new ReadinessInput(at, engine, slots, slotsSource, inFlight, running, waiting, queueWaitSeconds,
                queueWaitSource, ttftSeconds, ttftSloSeconds, baselineSeconds, memoryPressure, swapGrowthBytes, gpuShare,
                thermalLevel, cpuSpeedLimit, engineRefresh, queueRefresh, hostRefresh);
    }

    public ReadinessInput withHost(Double memoryPressure, Double swapGrowthBytes, Double gpuShare, Double thermalLevel,
                                   Double cpuSpeedLimit) {
        return new ReadinessInput(at, engine, slots, slotsSource, inFlight, running, waiting, queueWaitSeconds,
                queueWaitSource, ttftSeconds, ttftSloSeconds, baselineSeconds, memoryPressure, swapGrowthBytes, gpuShare,
                thermalLevel, cpuSpeedLimit, engineRefresh, queueRefresh, hostRefresh);
    }

    public ReadinessInput withRefresh(Duration engineRefresh, Duration queueRefresh, Duration hostRefresh) {
        return new ReadinessInput(at, engine, slots, slotsSource, inFlight, running, waiting, queueWaitSeconds,
                queueWaitSource, ttftSeconds, ttftSloSeconds, baselineSeconds, memoryPressure, swapGrowthBytes, gpuShare,
                thermalLevel, cpuSpeedLimit, engineRefresh, queueRefresh, hostRefresh);
    }

    public ReadinessInput at(Instant when) {
        return new ReadinessInput(when, engine, slots, slotsSource, inFlight, running, waiting, queueWaitSeconds,
                queueWaitSource, ttftSeconds, ttftSloSeconds, baselineSeconds, memoryPressure, swapGrowthBytes, gpuShare,
                thermalLevel, cpuSpeedLimit, engineRefresh, queueRefresh, hostRefresh);
    }
}
