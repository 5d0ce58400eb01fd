package io.tailwatch.metrics;

/** How a metric is recorded and exported. */
public enum Instrument {
    /** Last observed value; absent when unknown. */
    GAUGE,
    /** Monotonic cumulative total, observed from its source. */
    COUNTER,
    /** Distribution of recorded events with explicit buckets. */
    HISTOGRAM
}
