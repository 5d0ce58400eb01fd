package io.tailwatch.daemon.alerts;

import io.tailwatch.metrics.AttrValues.WebhookOutcome;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The webhook sink's counters as {@code tailwatch.webhook.notifications} series, for /metrics, OTLP and the rules. */
public final class WebhookMetrics {
    private WebhookMetrics() {
    }

    /** Status counter name to the {@code outcome} value it is exported as. */
    private static final Map<String, WebhookOutcome> OUTCOMES = Map.of("sent", WebhookOutcome.SENT, "failed", WebhookOutcome.FAILED,
            "dropped", WebhookOutcome.DROPPED, "suppressed_by_cooldown", WebhookOutcome.SUPPRESSED);

    /** Points from {@link WebhookSink#stats()}; counters missing from the map are left out. */
    public static List<Point> points(Map<String, Object> stats) {
        List<Point> out = new ArrayList<>(4);
        for (String key : List.of("sent", "failed", "dropped", "suppressed_by_cooldown")) {
            if (stats.get(key) instanceof Number n) {
                out.add(Point.of(SelfMetrics.WEBHOOK_NOTIFICATIONS, n.doubleValue(), OUTCOMES.get(key)));
            }
        }
        return out;
    }
}
