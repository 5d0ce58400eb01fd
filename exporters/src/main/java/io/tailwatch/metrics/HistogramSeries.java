package io.tailwatch.metrics;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The cumulative state of one histogram series (one attribute set of one histogram metric), kept by
 * the {@link MetricHub}: a count per bucket plus the overflow bucket, sum, count, min and max, the
 * largest value of the last two minutes, when it started and when it was last recorded. This is the
 * one recording of a histogram both exporters read. Its buckets are the union of the catalog's (what
 * /metrics shows) and the OTLP ones ({@link ProbeMetrics#otlpBuckets}), so each exporter's counts are
 * exact sums of them. Guarded by the hub's lock; {@link #copy(long)} gives exporters a consistent view.
 */
public final class HistogramSeries {
    private final MetricDef metric;
    private final Map<String, String> attributes;
    /** The union of both exporters' bounds, ascending; a count per bucket of it plus the overflow one. */
    private final double[] bounds;
    private final long[] counts;
    /** Where each OTLP bound and each catalog bound is in {@link #bounds}. */
    private final int[] otlpAt;
    private final int[] promAt;
    private final long startEpochNanos;
    private final int estimatedBytes;
    private double sum;
    private long count;
    private double min = Double.NaN;
    private double max = Double.NaN;
    private long lastEpochNanos;
    /**
     * The largest value of the last two minutes, as a ring of three 40-second slots: a value raises every
     * slot, and each rotation empties the oldest one (the decaying maximum /metrics has always shown as
     * {@code <name>_max}).
     */
    private final double[] windowMax = new double[MAX_SLOTS];
    private int maxSlot;
    private long lastRotateMillis;

    static final int MAX_SLOTS = 3;
    static final long MAX_ROTATE_MILLIS = 40_000;

    HistogramSeries(MetricDef metric, Map<String, String> attributes, long startEpochNanos, int estimatedBytes) {
        this.metric = metric;
        this.attributes = Map.copyOf(attributes);
        List<Double> otlp = ProbeMetrics.otlpBuckets(metric);
        java.util.TreeSet<Double> union = new java.util.TreeSet<>(otlp);
        union.addAll(metric.buckets());
        this.bounds = union.stream().mapToDouble(Double::doubleValue).toArray();
        this.otlpAt = positions(bounds, otlp);
        this.promAt = positions(bounds, metric.buckets());
        this.counts = new long[bounds.length + 1];
        this.startEpochNanos = startEpochNanos;
        this.lastEpochNanos = startEpochNanos;
        this.lastRotateMillis = startEpochNanos / 1_000_000L;
        this.estimatedBytes = estimatedBytes;
    }

    private static int[] positions(double[] all, List<Double> some) {
        int[] at = new int[some.size()];
        for (int i = 0; i < at.length; i++) {
            at[i] = Arrays.binarySearch(all, some.get(i));
        }
        return at;
    }

    private HistogramSeries(HistogramSeries o) {
        this.metric = o.metric;
        this.attributes = o.attributes;
        this.bounds = o.bounds;
        this.otlpAt = o.otlpAt;
        this.promAt = o.promAt;
        this.counts = o.counts.clone();
        System.arraycopy(o.windowMax, 0, windowMax, 0, MAX_SLOTS);
        this.maxSlot = o.maxSlot;
        this.lastRotateMillis = o.lastRotateMillis;
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
        rotate(epochNanos / 1_000_000L);
        for (int slot = 0; slot < MAX_SLOTS; slot++) {
            if (value > windowMax[slot]) {
                windowMax[slot] = value;
            }
        }
    }

    /** Empties the slots whose 40 seconds have passed by {@code nowMillis}. */
    private void rotate(long nowMillis) {
        long since = nowMillis - lastRotateMillis;
        for (int n = 0; since >= MAX_ROTATE_MILLIS; n++) {
            if (n == MAX_SLOTS) {
                lastRotateMillis += since / MAX_ROTATE_MILLIS * MAX_ROTATE_MILLIS;
                break;
            }
            windowMax[maxSlot] = 0;
            maxSlot = (maxSlot + 1) % MAX_SLOTS;
            lastRotateMillis += MAX_ROTATE_MILLIS;
            since -= MAX_ROTATE_MILLIS;
        }
    }

    /** A consistent copy, its two-minute maximum as of {@code nowMillis}. */
    HistogramSeries copy(long nowMillis) {
        rotate(nowMillis);
        return new HistogramSeries(this);
    }

    public MetricDef metric() {
        return metric;
    }

    public Map<String, String> attributes() {
        return attributes;
    }

    /** The OTLP explicit upper bounds, ascending. */
    public double[] bounds() {
        double[] out = new double[otlpAt.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = bounds[otlpAt[i]];
        }
        return out;
    }

    /** One count per OTLP bucket ({@link #bounds()}), then the overflow bucket (values above the last bound). */
    public long[] counts() {
        return regroup(otlpAt, new long[otlpAt.length + 1]);
    }

    /**
     * One count per bucket of the catalog's bounds ({@link MetricDef#buckets()}), then the overflow bucket,
     * into the first of {@code into}.
     */
    public void catalogCounts(long[] into) {
        regroup(promAt, into);
    }

    /** The counts of the buckets that end at the bounds {@code at} (indexes into {@link #bounds}), then the rest. */
    private long[] regroup(int[] at, long[] out) {
        for (int i = 0, from = 0; i <= at.length; i++) {
            int to = i < at.length ? at[i] + 1 : counts.length;
            long n = 0;
            for (int j = from; j < to; j++) {
                n += counts[j];
            }
            out[i] = n;
            from = to;
        }
        return out;
    }

    /** The largest value recorded in the last two minutes (80 to 120 s), 0 when none was (as of the copy). */
    public double windowMax() {
        return windowMax[maxSlot];
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
