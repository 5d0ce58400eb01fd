package io.tailwatch.metrics;

import static io.tailwatch.metrics.AttributeDef.free;
import static io.tailwatch.metrics.AttributeDef.oneOf;

import io.tailwatch.metrics.AttrValues.ReadyReason;
import java.util.List;

/** Whether each engine can take one more request within its SLO: the verdict a router reads (docs/routing.md). */
public final class ReadinessMetrics {
    private ReadinessMetrics() {
    }

    static final AttributeDef ENGINE = free(AttrKeys.ENGINE, "Configured engine name");

    public static final MetricDef READY = MetricDef.gauge("tailwatch.engine.ready", "{bool}",
            "1 when the engine can take one more request within its SLO, 0 when it cannot or when that is unknown; the same verdict as GET /api/v1/engines/NAME/ready. The reason attribute is the first reason that holds (none when ready).",
            ENGINE, oneOf(AttrKeys.READY_REASON, "First reason that holds, in the order of the list; none when ready", ReadyReason.class));

    public static final MetricDef REASONS = MetricDef.gauge("tailwatch.engine.ready.reasons", "{bool}",
            "1 for each reason that keeps the engine from being ready; a reason that does not hold has no series.",
            ENGINE, oneOf(AttrKeys.READY_REASON, "A reason that holds", ReadyReason.class));

    public static final MetricDef HEADROOM = MetricDef.gauge("tailwatch.engine.ready.headroom", "{request}",
            "How many more concurrent requests the engine is estimated to take within its SLO (0 while not ready); absent when it cannot be estimated (no slot or batch size known).",
            ENGINE);

    public static final List<MetricDef> ALL = List.of(READY, REASONS, HEADROOM);
}
