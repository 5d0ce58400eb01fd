package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import java.util.List;

/** Signals the engines report about themselves: queue depth, running requests, KV-cache use. */
public final class EngineSideMetrics {
    private EngineSideMetrics() {
    }

    static final AttributeDef ENGINE = free("engine", "Configured engine name");

    public static final MetricDef REQUESTS = MetricDef.gauge("tailwatch.engine.requests", "{request}",
            "Requests the engine reports as running or waiting in its queue.", ENGINE,
            oneOf("state", "Request state", "running", "waiting"));

    public static final MetricDef KV_CACHE_USAGE = MetricDef.gauge("tailwatch.engine.kv_cache.usage", "1",
            "KV-cache use the engine reports, as a ratio of its capacity.", ENGINE);

    public static final MetricDef QUEUE_WAIT = MetricDef.gauge("tailwatch.engine.queue.wait", "s",
            "Queue wait of the last probe: measured by the engine, or estimated from time to response headers.", ENGINE,
            oneOf("source", "measured: the engine's own figure; estimate: from probe header time", "measured", "estimate"));

    public static final List<MetricDef> ALL = List.of(REQUESTS, KV_CACHE_USAGE, QUEUE_WAIT);
}
