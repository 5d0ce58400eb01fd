package io.tailwatch.metrics;

/** How a metric is recorded and exported. */
public enum Instrument {
    /** Last observed value; absent when unknown. */
    GAUGE,
    /** Monotonic cumulative total, observed from its source. */
    COUNTER,
    /**
     * An additive amount that goes up and down (bytes in use, a limit), observed from its source:
     * an OTLP non-monotonic Sum, a gauge on {@code /metrics}.
     */
    UPDOWNCOUNTER,
    /** Distribution of recorded events with explicit buckets. */
    HISTOGRAM
}
