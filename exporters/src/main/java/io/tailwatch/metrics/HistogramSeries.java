package io.tailwatch.metrics;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The cumulative state of one histogram series (one attribute set of one histogram metric), kept by
 * the {@link MetricHub}: a count per explicit bucket plus the overflow bucket, sum, count, min and
 * max, when it started and when it was last recorded. Guarded by the hub's lock; {@link #copy()}
 * gives exporters a consistent view.
 */
public final class HistogramSeries {
    private final MetricDef metric;
    private final Map<String, String> attributes;
    private final double[] bounds;
    private final long[] counts;
    private final long startEpochNanos;
    private final int estimatedBytes;
    private double sum;
    private long count;
    private double min = Double.NaN;
    private double max = Double.NaN;
    private long lastEpochNanos;

    HistogramSeries(MetricDef metric, Map<String, String> attributes, long startEpochNanos, int estimatedBytes) {
        this.metric = metric;
        this.attributes = Map.copyOf(attributes);
        List<Double> b = ProbeMetrics.otlpBuckets(metric); // the hub's series are what OTLP exports
        this.bounds = new double[b.size()];
        for (int i = 0; i < bounds.length; i++) {
            bounds[i] = b.get(i);
        }
        this.counts = new long[bounds.length + 1];
        this.startEpochNanos = startEpochNanos;
        this.lastEpochNanos = startEpochNanos;
        this.estimatedBytes = estimatedBytes;
    }

    private HistogramSeries(HistogramSeries o) {
        this.metric = o.metric;
        this.attributes = o.attributes;
        this.bounds = o.bounds;
        this.counts = o.counts.clone();
        this.startEpochNanos = o.startEpochNanos;
        this.estimatedBytes = o.estimatedBytes;
        this.sum = o.sum;
        this.count = o.count;
        this.min = o.min;
        this.max = o.max;
        this.lastEpochNanos = o.lastEpochNanos;
    }

    /** Identity across copies: metric, attributes and start (a series re-admitted after expiry is a new one). */
    record Key(String metric, Map<String, String> attributes, long startEpochNanos) {
    }

    Key key() {
        return new Key(metric.name(), attributes, startEpochNanos);
    }

    void record(double value, long epochNanos) {
        int i = Arrays.binarySearch(bounds, value);
        // Buckets are upper-inclusive: a value equal to a bound counts in that bound's bucket.
        int bucket = i >= 0 ? i : -i - 1;
        counts[bucket]++;
        sum += value;
        count++;
        min = Double.isNaN(min) ? value : Math.min(min, value);
        max = Double.isNaN(max) ? value : Math.max(max, value);
        lastEpochNanos = epochNanos;
    }

    HistogramSeries copy() {
        return new HistogramSeries(this);
    }

    public MetricDef metric() {
        return metric;
    }

    public Map<String, String> attributes() {
        return attributes;
    }

    /** Explicit upper bounds, ascending. */
    public double[] bounds() {
        return bounds.clone();
    }

    /** One count per explicit bucket, then the overflow bucket (values above the last bound). */
    public long[] counts() {
        return counts.clone();
    }

    public double sum() {
        return sum;
    }

    public long count() {
        return count;
    }

    public double min() {
        return min;
    }

    public double max() {
        return max;
    }

    public long startEpochNanos() {
        return startEpochNanos;
    }

    public long lastEpochNanos() {
        return lastEpochNanos;
    }

    int estimatedBytes() {
        return estimatedBytes;
    }
}
