package io.tailwatch.metrics;

import java.util.Map;

/** An exporter fed by the {@link MetricHub}. */
public interface MetricSink {
    /** Called after any producer published; the snapshot holds every current series. */
    void onSnapshot(MetricSnapshot snapshot);

    /** One event for a histogram. */
    void onRecord(MetricDef histogram, Map<String, String> attributes, double value);

    /** A histogram series expired (not recorded for the hub's expiry time): forget it. */
    default void onExpire(MetricDef histogram, Map<String, String> attributes) {
    }
}
