package io.tailwatch.metrics;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single place values flow through on their way to the exporters. Each producer (a sampler,
 * a prober, the rule evaluator) publishes its whole current set of series; what it no longer
 * publishes disappears from the output. Histogram events are aggregated here, per series, and a
 * histogram series not recorded for {@link Limits#expiry()} is removed from every exporter.
 *
 * <p>Everything the exporters render is bounded ({@link Limits}): series per metric, series in
 * total, and the estimated size of the Prometheus exposition. A series over a bound is dropped and
 * counted once in {@code tailwatch_series_dropped_total}: a published series when it newly is (it was
 * not dropped at the previous merge), a histogram series once until it has not been tried for the
 * expiry time. The warning about drops is logged at most once per metric per hour.
 */
public final class MetricHub {
    private static final Logger LOG = LoggerFactory.getLogger(MetricHub.class);
    public static final int DEFAULT_MAX_SERIES_PER_METRIC = 500;
    /** Distinct dropped series remembered so that each is counted once; beyond this the oldest are forgotten. */
    static final int MAX_REMEMBERED_DROPS = 4096;
    static final Duration WARN_INTERVAL = Duration.ofHours(1);

    /**
     * The bounds of everything exported.
     *
     * @param maxSeriesPerMetric series one metric may hold (gauge points or histogram attribute sets)
     * @param maxSeries          series of all metrics together
     * @param maxExpositionBytes estimated size of the Prometheus text exposition (every histogram
     *                           series counts with all its bucket, sum, count and max lines)
     * @param expiry             a histogram series not recorded for this long is removed
     */
    public record Limits(int maxSeriesPerMetric, int maxSeries, long maxExpositionBytes, Duration expiry) {
        /**
         * 4,000 series and 3 MiB of exposition: the largest configuration `config check` accepts (32
         * engines, 64 scenarios) renders about 2.1 MB with nothing dropped, and a scrape at the bound,
         * rendered while the agent holds everything else, stays below the 24 MiB heap the launcher gives
         * (docs/reliability.md).
         * Expiry: two probe windows of 10 minutes; the daemon sets two of its longest scenario window.
         */
        public static final Limits DEFAULT = new Limits(DEFAULT_MAX_SERIES_PER_METRIC, 4000, 3L << 20,
                Duration.ofMinutes(20));

        public Limits {
            if (maxSeriesPerMetric < 1 || maxSeries < 1 || maxExpositionBytes < 1 || expiry.isNegative()
                    || expiry.isZero()) {
                throw new IllegalArgumentException("series limits must be positive");
            }
        }

        public Limits withExpiry(Duration d) {
            return new Limits(maxSeriesPerMetric, maxSeries, maxExpositionBytes, d);
        }
    }

    private final Clock clock;
    private volatile Limits limits;
    private final Map<String, List<Point>> byProducer = new ConcurrentHashMap<>();
    private final List<MetricSink> sinks = new CopyOnWriteArrayList<>();
    /** Histogram state by series, guarded by {@code this}. */
    private final Map<Point.SeriesKey, HistogramSeries> histograms = new LinkedHashMap<>();
    private final Map<String, Integer> histogramsPerMetric = new HashMap<>();
    private long histogramBytes;
    /**
     * Hash of each dropped histogram series -> when it was last dropped (epoch millis); access order,
     * bounded. Published series are compared with the previous merge instead ({@link #droppedAtLastMerge}).
     */
    private final LinkedHashMap<Long, Long> droppedKeys = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> e) {
            return size() > MAX_REMEMBERED_DROPS;
        }
    };
    private final Map<String, Long> lastWarned = new HashMap<>();
    /** Sorted hashes of the published series the previous merge dropped: a series counts when it newly is. */
    private long[] droppedAtLastMerge = new long[0];
    private long dropped;
    private long lastExpiryMillis;
    private int publishedSeries;
    private long publishedBytes;
    private Consumer<String> warnings = LOG::warn;
    private volatile MetricSnapshot snapshot = MetricSnapshot.EMPTY;
    /** Serializes deliveries to the sinks (see {@link #deliverLatest}). */
    private final Object deliveryLock = new Object();
    /** Run before a read of everything published (see {@link #refresh}); one per producer that asks. */
    private final List<Runnable> refreshers = new CopyOnWriteArrayList<>();
    /** Refreshers a hub keeps at most (one per engine proxy; engines are far fewer). */
    static final int MAX_REFRESHERS = 256;
    /** The refreshers run at most once in this long, however many readers ask. */
    static final long REFRESH_EVERY_NANOS = 50_000_000L;
    private final java.util.concurrent.atomic.AtomicLong lastRefresh = new java.util.concurrent.atomic.AtomicLong(
            System.nanoTime() - 2 * REFRESH_EVERY_NANOS);

    public MetricHub() {
        this(Clock.systemUTC(), Limits.DEFAULT);
    }

    public MetricHub(Clock clock, int maxSeriesPerMetric) {
        this(clock, new Limits(maxSeriesPerMetric, Limits.DEFAULT.maxSeries(), Limits.DEFAULT.maxExpositionBytes(),
                Limits.DEFAULT.expiry()));
    }

    public MetricHub(Clock clock, Limits limits) {
        this.clock = clock;
        this.limits = limits;
        this.lastExpiryMillis = clock.millis();
    }

    private volatile GenAiConventions genAi = GenAiConventions.V1_41;

    /** The GenAI metric names producers record under (OTEL_SEMCONV_STABILITY_OPT_IN, see {@link GenAiConventions}). */
    public GenAiConventions genAiConventions() {
        return genAi;
    }

    public void genAiConventions(GenAiConventions conventions) {
        this.genAi = java.util.Objects.requireNonNull(conventions, "conventions");
    }

    public Limits limits() {
        return limits;
    }

    /** From now on a histogram series not recorded for {@code expiry} is removed (a reloaded config's windows). */
    public void expireAfter(Duration expiry) {
        limits = limits.withExpiry(expiry);
    }

    /** Where the dropped-series warnings go (tests); the default is this class's logger. */
    synchronized void warningsTo(Consumer<String> sink) {
        this.warnings = sink;
    }

    public void addSink(MetricSink sink) {
        sinks.add(sink);
        sink.onSnapshot(snapshot);
    }

    public void removeSink(MetricSink sink) {
        sinks.remove(sink);
    }

    /** Replaces everything {@code producer} published before with {@code points}. */
    public void publish(String producer, List<Point> points) {
        List<Point> kept = points;
        for (Point p : points) {
            check(p.metric(), p.attributes());
            if (p.metric().instrument() == Instrument.HISTOGRAM) {
                throw new IllegalArgumentException(p.metric().name() + " is a histogram: use record()");
            }
            if (p.metric().instrument() == Instrument.COUNTER && !(p.value() >= 0 && p.value() < Double.POSITIVE_INFINITY)) {
                kept = null;
            }
        }
        if (kept == null) {
            kept = wholeCounters(points);
        }
        points = kept;
        synchronized (this) {
            expireIfDue();
            byProducer.put(producer, sameMaps(byProducer.get(producer), points));
            snapshot = merge();
        }
        deliverLatest();
    }

    /**
     * {@code points}, each series that {@code before} had with the attribute map it had there: a series keeps
     * one map from publish to publish, by which a reader (the Prometheus collector) tells it without comparing
     * its attributes.
     */
    private static List<Point> sameMaps(List<Point> before, List<Point> points) {
        if (before == null) {
            return List.copyOf(points);
        }
        Map<Point.SeriesKey, Map<String, String>> had = new HashMap<>(before.size() * 2);
        for (Point p : before) {
            had.put(p.key(), p.attributes());
        }
        List<Point> out = new ArrayList<>(points.size());
        for (Point p : points) {
            Map<String, String> a = had.get(p.key());
            out.add(a == null || a == p.attributes() ? p : new Point(p.metric(), a, p.value()));
        }
        return List.copyOf(out);
    }

    /**
     * Hands the sinks the newest snapshot, one delivery at a time. A publisher that lost the race to deliver
     * finds its own snapshot already replaced and hands on the newer one: sinks never go back to an older
     * snapshot, so a series a producer just removed cannot reappear. Outside the hub's lock, so a sink may read
     * the hub.
     */
    private void deliverLatest() {
        synchronized (deliveryLock) {
            MetricSnapshot latest = snapshot;
            for (MetricSink s : sinks) {
                s.onSnapshot(latest);
            }
        }
    }

    /**
     * The points without a counter that is negative or not finite, which no exposition can carry (a scrape
     * would fail whole): the last guard behind the range checks where numbers enter; warned once per metric.
     */
    private List<Point> wholeCounters(List<Point> points) {
        List<Point> out = new java.util.ArrayList<>(points.size());
        for (Point p : points) {
            if (p.metric().instrument() == Instrument.COUNTER && !(p.value() >= 0 && p.value() < Double.POSITIVE_INFINITY)) {
                if (brokenCounters.add(p.metric().name())) {
                    Consumer<String> w;
                    synchronized (this) {
                        w = warnings;
                    }
                    w.accept(p.metric().name() + ": a counter of " + p.value() + " left out (counters are whole and never negative)");
                }
                continue;
            }
            out.add(p);
        }
        return out;
    }

    private final java.util.Set<String> brokenCounters = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Records one histogram event. */
    public void record(MetricDef histogram, Map<String, String> attributes, double value) {
        if (histogram.instrument() != Instrument.HISTOGRAM) {
            throw new IllegalArgumentException(histogram.name() + " is not a histogram");
        }
        Map<String, String> attrs = Attrs.bounded(attributes);
        check(histogram, attrs);
        synchronized (this) {
            expireIfDue();
            Point.SeriesKey key = new Point.SeriesKey(histogram.name(), attrs);
            HistogramSeries s = histograms.get(key);
            if (s == null) {
                int bytes = estimatedBytes(histogram, attrs);
                int sameMetric = histogramsPerMetric.getOrDefault(histogram.name(), 0);
                if (sameMetric >= limits.maxSeriesPerMetric()
                        || histograms.size() + publishedSeries + 1 > limits.maxSeries()
                        || histogramBytes + publishedBytes + bytes > limits.maxExpositionBytes()) {
                    long now = clock.millis();
                    if (droppedKeys.put(seriesHash(histogram.name(), attrs), now) == null) {
                        dropped++;
                    }
                    warnDropped(histogram);
                    return;
                }
                s = new HistogramSeries(histogram, attrs, nowNanos(), bytes);
                histograms.put(key, s);
                histogramsPerMetric.merge(histogram.name(), 1, Integer::sum);
                histogramBytes += bytes;
            }
            s.record(value, nowNanos());
            // Sinks hear of the event under the lock, so an expiry can never race a re-creation.
            for (MetricSink sink : sinks) {
                sink.onRecord(histogram, attrs, value);
            }
        }
    }

    public MetricSnapshot snapshot() {
        return snapshot;
    }

    /**
     * Asks {@code refresher} to publish its values before every read: a producer whose values move with
     * every request (a proxy's in-flight count) is then exact at each scrape, export and rule evaluation, not
     * only as of its own last publish. At most {@value #MAX_REFRESHERS} refreshers are kept.
     */
    public void refreshBeforeReads(Runnable refresher) {
        if (refreshers.size() >= MAX_REFRESHERS) {
            throw new IllegalStateException("too many refreshers: " + refreshers.size());
        }
        refreshers.add(java.util.Objects.requireNonNull(refresher, "refresher"));
    }

    public void stopRefreshing(Runnable refresher) {
        refreshers.remove(refresher);
    }

    /**
     * Runs the refreshers (at most once per {@value #REFRESH_EVERY_NANOS} ns; a reader that comes sooner reads
     * what the last run published). Readers call this before {@link #snapshot}. One that throws is logged and
     * the others still run: a broken producer never fails a scrape.
     */
    public void refresh() {
        refresh(System.nanoTime());
    }

    void refresh(long now) {
        long last = lastRefresh.get();
        if (now - last < REFRESH_EVERY_NANOS || !lastRefresh.compareAndSet(last, now)) {
            return;
        }
        for (Runnable r : refreshers) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("a producer failed to refresh its metrics: {}", e.toString());
            }
        }
    }

    /** A consistent copy of every histogram series (both exporters read these when they export or render). */
    public synchronized List<HistogramSeries> histograms() {
        expireIfDue();
        long now = clock.millis();
        List<HistogramSeries> out = new ArrayList<>(histograms.size());
        for (HistogramSeries s : histograms.values()) {
            out.add(s.copy(now));
        }
        return out;
    }

    public synchronized int histogramSeriesCount() {
        return histograms.size();
    }

    public synchronized long droppedSeries() {
        return dropped;
    }

    /** The estimated Prometheus exposition size of everything exported now. */
    public synchronized long estimatedExpositionBytes() {
        return histogramBytes + publishedBytes;
    }

    private long nowNanos() {
        java.time.Instant i = clock.instant();
        return TimeUnit.SECONDS.toNanos(i.getEpochSecond()) + i.getNano();
    }

    /** Sweeps at most once every 1/20 of the expiry time (once a minute with the default). */
    private void expireIfDue() {
        long now = clock.millis();
        long expiryMillis = limits.expiry().toMillis();
        if (now - lastExpiryMillis < Math.max(1, expiryMillis / 20)) {
            return;
        }
        lastExpiryMillis = now;
        long cutoffNanos = TimeUnit.MILLISECONDS.toNanos(now - expiryMillis);
        Iterator<Map.Entry<Point.SeriesKey, HistogramSeries>> it = histograms.entrySet().iterator();
        while (it.hasNext()) {
            HistogramSeries s = it.next().getValue();
            if (s.lastEpochNanos() < cutoffNanos) {
                it.remove();
                histogramsPerMetric.merge(s.metric().name(), -1, Integer::sum);
                histogramBytes -= s.estimatedBytes();
                for (MetricSink sink : sinks) {
                    sink.onExpire(s.metric(), s.attributes());
                }
            }
        }
        // Dropped series not seen for the expiry time count again when they come back.
        Iterator<Map.Entry<Long, Long>> d = droppedKeys.entrySet().iterator();
        while (d.hasNext()) {
            if (d.next().getValue() < now - expiryMillis) {
                d.remove();
            } else {
                break; // access order: the rest were dropped more recently
            }
        }
    }

    private MetricSnapshot merge() {
        List<Point> all = new ArrayList<>();
        Map<String, Integer> perMetric = new HashMap<>();
        int series = histograms.size();
        long bytes = histogramBytes;
        int published = 0;
        long publishedB = 0;
        long[] droppedNow = new long[16];
        int nDropped = 0;
        for (List<Point> ps : byProducer.values()) {
            for (Point p : ps) {
                int n = perMetric.merge(p.metric().name(), 1, Integer::sum);
                int b = estimatedBytes(p.metric(), p.attributes());
                if (n > limits.maxSeriesPerMetric() || series + 1 > limits.maxSeries()
                        || bytes + b > limits.maxExpositionBytes()) {
                    long h = seriesHash(p.metric().name(), p.attributes());
                    if (java.util.Arrays.binarySearch(droppedAtLastMerge, h) < 0) {
                        dropped++;
                    }
                    if (nDropped == droppedNow.length) {
                        droppedNow = java.util.Arrays.copyOf(droppedNow, nDropped * 2);
                    }
                    droppedNow[nDropped++] = h;
                    warnDropped(p.metric());
                    continue;
                }
                series++;
                bytes += b;
                published++;
                publishedB += b;
                all.add(p);
            }
        }
        publishedSeries = published;
        publishedBytes = publishedB;
        droppedAtLastMerge = java.util.Arrays.copyOf(droppedNow, nDropped);
        java.util.Arrays.sort(droppedAtLastMerge);
        all.add(new Point(SelfMetrics.SERIES_DROPPED, Map.of(), dropped));
        return new MetricSnapshot(clock.instant(), all);
    }

    /** Warns about dropped series of {@code metric} at most once an hour. */
    private void warnDropped(MetricDef metric) {
        long now = clock.millis();
        Long last = lastWarned.get(metric.name());
        if (last == null || now - last >= WARN_INTERVAL.toMillis()) {
            lastWarned.put(metric.name(), now);
            warnings.accept("series bound reached for " + metric.name() + " (" + limits.maxSeriesPerMetric()
                    + " per metric, " + limits.maxSeries() + " in total, " + limits.maxExpositionBytes()
                    + " bytes of exposition); further series are dropped and counted in"
                    + " tailwatch_series_dropped_total (" + dropped + " so far); this warning repeats at most hourly");
        }
    }

    /** 64-bit FNV-1a over the metric name and the sorted attributes. */
    static long seriesHash(String metric, Map<String, String> attrs) {
        long h = 0xcbf29ce484222325L;
        h = fnv(h, metric);
        for (Map.Entry<String, String> e : new TreeMap<>(attrs).entrySet()) {
            h = fnv(h, "\u0000" + e.getKey() + "\u0001" + e.getValue());
        }
        return h;
    }

    private static long fnv(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            h ^= c & 0xff;
            h *= 0x100000001b3L;
            h ^= c >>> 8;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /**
     * An upper estimate of the series' lines in the Prometheus text exposition: name, every declared
     * label (escaped value, UTF-8), value and line end; a histogram renders one line per bucket (with
     * its {@code le} label) plus +Inf, count, sum and the max gauge.
     */
    static int estimatedBytes(MetricDef def, Map<String, String> attrs) {
        int labels = 2;
        for (AttributeDef a : def.attributes()) {
            labels += MetricDef.labelName(a.name()).length() + 4 + escapedUtf8Length(attrs.getOrDefault(a.name(), ""));
        }
        int line = def.prometheusName().length() + labels + 32;
        if (def.instrument() != Instrument.HISTOGRAM) {
            return line;
        }
        // Bucket lines carry le="..." (at most 24 more bytes); the other four lines are shorter.
        return (def.buckets().size() + 4) * (line + 32);
    }

    private static int escapedUtf8Length(String v) {
        int n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\\' || c == '"' || c == '\n') {
                n += 2;
            } else if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else {
                n += 3;
            }
        }
        return n;
    }

    private static void check(MetricDef def, Map<String, String> attrs) {
        java.util.Set<String> required = new java.util.HashSet<>();
        for (AttributeDef a : def.attributes()) {
            if (!a.optional()) {
                required.add(a.name());
            }
        }
        if (!attrs.keySet().containsAll(required) || !def.attributeNames().containsAll(attrs.keySet())) {
            throw new IllegalArgumentException(def.name() + ": attributes " + attrs.keySet()
                    + " do not match the declaration " + def.attributeNames());
        }
        for (Map.Entry<String, String> e : attrs.entrySet()) {
            AttributeDef a = def.attribute(e.getKey());
            if (e.getValue() == null || !a.accepts(e.getValue())) {
                throw new IllegalArgumentException(def.name() + ": " + e.getKey() + "=" + e.getValue()
                        + " is not one of " + a.allowed());
            }
        }
    }
}
