package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import io.tailwatch.metrics.AttrValues.QueueWaitSource;
import io.tailwatch.metrics.AttrValues.RequestState;
import io.tailwatch.metrics.AttrValues.RequestsSource;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.util.List;

/** Signals the engines report about themselves: queue depth, running requests, KV-cache use. */
public final class EngineSideMetrics {
    private EngineSideMetrics() {
    }

    static final AttributeDef ENGINE = free(AttrKeys.ENGINE, "Configured engine name");

    public static final MetricDef REQUESTS = MetricDef.gauge("tailwatch.engine.requests", "{request}",
            "Requests running or waiting in the engine's queue, as the engine counts them, or (for a batching engine that "
                    + "counts none) the proxy's requests in flight against the engine's batch size.", ENGINE,
            oneOf(AttrKeys.REQUEST_STATE, "Request state", RequestState.class),
            oneOf(AttrKeys.REQUESTS_SOURCE, "engine: the engine's own count; proxy: the proxy's in-flight requests "
                    + "against the engine's batch size (only traffic through the proxy)", RequestsSource.class));

    public static final MetricDef KV_CACHE_USAGE = MetricDef.gauge("tailwatch.engine.kv_cache.usage", "1",
            "KV-cache use the engine reports, as a ratio of its capacity.", ENGINE);

    public static final MetricDef SLOTS = MetricDef.gauge("tailwatch.engine.slots", "{slot}",
            "Requests the engine can generate at once, as it reports them: llama.cpp's /slots, or for Ollama its runners' "
                    + "/slots summed; absent when the engine does not say.", ENGINE);

    public static final MetricDef QUEUE_WAIT = MetricDef.gauge("tailwatch.engine.queue.wait", "s",
            "Queue wait of the last probe: measured by the engine, or estimated from time to response headers.", ENGINE,
            oneOf(AttrKeys.QUEUE_WAIT_SOURCE, "measured: the engine's own figure; estimate: from probe header time", QueueWaitSource.class));

    static final AttributeDef SIGNAL_SOURCE_KIND = oneOf(AttrKeys.SIGNAL_SOURCE,
            "Where the engine's own figures are read: llamacpp_slots (/slots), prometheus (/metrics text), mlx_vlm_json "
                    + "(/metrics JSON), health_queue (a field of /healthz or /health), vllm_mlx_status (vllm-mlx /v1/status), "
                    + "lmstudio_models (LM Studio /api/v1/models), header_estimate (probe header time)",
            SignalSource.class);

    public static final MetricDef SIGNAL_SOURCE = MetricDef.gauge("tailwatch.engine.signal.source", "{info}",
            "Always 1, one series per source the engine's signals come from (header_estimate when the engine itself "
                    + "exposes nothing); no series while detection has not run or signals are off.",
            ENGINE, SIGNAL_SOURCE_KIND);

    public static final MetricDef SIGNAL_FAILURES = MetricDef.counter("tailwatch.engine.signal.failures", "{failure}",
            "Reads of an engine signal source that failed, by class (connect_refused, timeout, http_<status>, malformed, "
                    + "missing_field, ...).", ENGINE, SIGNAL_SOURCE_KIND,
            free(AttrKeys.ERROR_TYPE, "Failure class"));

    public static final List<MetricDef> ALL = List.of(REQUESTS, SLOTS, KV_CACHE_USAGE, QUEUE_WAIT, SIGNAL_SOURCE, SIGNAL_FAILURES);
}
