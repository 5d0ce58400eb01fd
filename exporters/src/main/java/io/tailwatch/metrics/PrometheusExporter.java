package io.tailwatch.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus exposition through Micrometer. Gauges and counters mirror the hub's snapshot (a series
 * that disappears from the snapshot is removed from the registry, so unknown stays absent);
 * histograms are Micrometer distribution summaries with the catalog's explicit buckets.
 * Rendering reads only the registries, so a slow sampler never blocks a scrape.
 *
 * <p>Each metric has a Micrometer registry of its own (and the process_* families one more). A
 * Micrometer registry collects all its meters before it writes any, so with one registry a scrape
 * held every sample of the exposition at once (megabytes at a few thousand series: more than the
 * daemon's 2 MiB young generation, so each scrape promoted them and old-generation collections
 * followed). Rendered family by family and streamed to the response, a scrape holds one family at a
 * time and the bytes leave through small reused buffers; the output is the same, byte for byte.
 */
public final class PrometheusExporter implements MetricSink {
    public static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    public static final String OPENMETRICS_CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /** One registry per metric (by its name), and the same registries by the first family name each renders. */
    private final Map<String, PrometheusMeterRegistry> byMetric = new ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentSkipListMap<String, PrometheusMeterRegistry> byFamily =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    private final Map<Point.SeriesKey, Series> series = new HashMap<>();
    private final Map<String, DistributionSummary> summaries = new ConcurrentHashMap<>();
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    /** The exposition writers Micrometer's registries use by default (Prometheus text, OpenMetrics). */
    private final ExpositionFormats formats = ExpositionFormats.init();
    private final byte[] targetInfoText;
    private final byte[] targetInfoOpenMetrics;
    /** The plans of each metric's registry (not of the process_* one), by registry. */
    private final Map<PrometheusMeterRegistry, Plans> plans = new ConcurrentHashMap<>();

    /**
     * A registry's {@link ExpositionPlan}s, one per format, valid for the meter set they were made from:
     * {@link #changed()} (a meter added or removed) drops them. A scrape that finds the lock taken (another
     * scrape writing with them) renders through Micrometer instead, so no scrape waits for another.
     */
    private static final class Plans {
        final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
        volatile int version;
        final ExpositionPlan[] byFormat = new ExpositionPlan[2];
        final int[] madeAt = {-1, -1};
        /** Plans that did not reproduce Micrometer's bytes at the current version (a value changed meanwhile, or a shape it cannot follow). */
        final int[] misses = new int[2];

        void changed() {
            version++;
        }
    }

    public PrometheusExporter(Map<String, String> resourceAttributes) {
        this(resourceAttributes, true);
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrometheusExporter.class);
    private volatile Runnable beforeScrape;

    /** Runs {@code refresh} at the start of every scrape (the daemon passes {@link MetricHub#refresh}). */
    public void beforeScrape(Runnable refresh) {
        this.beforeScrape = refresh;
    }

    /** {@code processMetrics}: also expose the standard process_* families of this JVM (see {@link MetricsReference}). */
    public PrometheusExporter(Map<String, String> resourceAttributes, boolean processMetrics) {
        String targetInfoLabels = labels(resourceAttributes);
        this.targetInfoText = ("# HELP target_info Target metadata\n# TYPE target_info gauge\ntarget_info" + targetInfoLabels
                + " 1\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.targetInfoOpenMetrics = ("# TYPE target info\n# HELP target Target metadata\ntarget_info" + targetInfoLabels
                + " 1\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (processMetrics) {
            PrometheusMeterRegistry process = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            ProcessMetrics.builder().register(process.getPrometheusRegistry());
            byFamily.put(firstFamily(process), process);
        }
    }

    private static final class Series {
        volatile double value;
        Meter meter;
        PrometheusMeterRegistry registry;
    }

    /** The registry of {@code def}'s families, made when its first meter comes ({@code register} adds it). */
    private synchronized <M extends Meter> M registerIn(MetricDef def, java.util.function.Function<PrometheusMeterRegistry, M> register) {
        PrometheusMeterRegistry r = byMetric.get(def.name());
        if (r != null) {
            M meter = register.apply(r);
            plans.get(r).changed();
            return meter;
        }
        r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        M meter = register.apply(r);
        plans.put(r, new Plans());
        byFamily.put(firstFamily(r), r);
        byMetric.put(def.name(), r);
        return meter;
    }

    /**
     * The first family name (in the exposition's order) a registry renders: the registry asks its filter
     * about every name, and a filter that says no to all of them writes nothing.
     */
    private static String firstFamily(PrometheusMeterRegistry r) {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        r.getPrometheusRegistry().scrape(name -> {
            names.add(name);
            return false;
        });
        if (names.isEmpty()) {
            throw new IllegalStateException("a registry without families");
        }
        return names.first();
    }

    @Override
    public synchronized void onSnapshot(MetricSnapshot snapshot) {
        Set<Point.SeriesKey> seen = new HashSet<>();
        for (Point p : snapshot.points()) {
            Point.SeriesKey key = p.key();
            seen.add(key);
            Series s = series.get(key);
            if (s == null) {
                s = new Series();
                s.meter = register(p.metric(), p.attributes(), s);
                s.registry = byMetric.get(p.metric().name());
                series.put(key, s);
            }
            s.value = p.value();
        }
        List<Point.SeriesKey> gone = new ArrayList<>();
        for (Map.Entry<Point.SeriesKey, Series> e : series.entrySet()) {
            if (!seen.contains(e.getKey())) {
                e.getValue().registry.remove(e.getValue().meter);
                plans.get(e.getValue().registry).changed();
                gone.add(e.getKey());
            }
        }
        gone.forEach(series::remove);
    }

    private Meter register(MetricDef def, Map<String, String> attrs, Series s) {
        Tags tags = presentTags(def, attrs);
        if (def.instrument() == Instrument.COUNTER) {
            return registerIn(def, r -> FunctionCounter.builder(def.name(), s, x -> x.value)
                    .description(def.description()).baseUnit(def.baseUnit()).tags(tags).register(r));
        }
        return registerIn(def, r -> Gauge.builder(def.name(), s, x -> x.value)
                .description(def.description()).baseUnit(def.baseUnit()).tags(tags).strongReference(true)
                .register(r));
    }

    @Override
    public void onRecord(MetricDef histogram, Map<String, String> attributes, double value) {
        String key = histogram.name() + new TreeMap<>(attributes);
        if ("s".equals(histogram.unit())) {
            // Micrometer's fixed-boundary histograms count whole units; durations go through a Timer
            // (nanosecond resolution) so sub-second buckets fill correctly.
            timers.computeIfAbsent(key, k -> registerIn(histogram, r -> Timer.builder(histogram.name())
                    .description(histogram.description())
                    .tags(tags(histogram, attributes))
                    .serviceLevelObjectives(histogram.buckets().stream()
                            .map(b -> Duration.ofNanos(Math.round(b * 1e9))).toArray(Duration[]::new))
                    .register(r))).record(Math.round(value * 1e9), TimeUnit.NANOSECONDS);
            return;
        }
        summaries.computeIfAbsent(key, k -> registerIn(histogram, r -> DistributionSummary.builder(histogram.name())
                .description(histogram.description())
                .baseUnit(histogram.baseUnit())
                .tags(tags(histogram, attributes))
                .serviceLevelObjectives(histogram.buckets().stream().mapToDouble(Double::doubleValue).toArray())
                .register(r))).record(value);
    }

    @Override
    public void onExpire(MetricDef histogram, Map<String, String> attributes) {
        String key = histogram.name() + new TreeMap<>(attributes);
        Meter m = timers.remove(key);
        if (m == null) {
            m = summaries.remove(key);
        }
        if (m != null) {
            PrometheusMeterRegistry r = byMetric.get(histogram.name());
            r.remove(m);
            plans.get(r).changed();
        }
    }

    /** Histogram series held now (tests). */
    int histogramMeters() {
        return timers.size() + summaries.size();
    }

    /** Every declared attribute becomes a tag (Micrometer wants one key set per name); absent optional ones are empty. */
    private static Tags tags(MetricDef def, Map<String, String> attrs) {
        List<Tag> t = new ArrayList<>(def.attributes().size());
        for (AttributeDef a : def.attributes()) {
            t.add(Tag.of(MetricDef.labelName(a.name()), attrs.getOrDefault(a.name(), "")));
        }
        return Tags.of(t);
    }

    /**
     * Gauges and counters carry only the labels a series has: an absent optional attribute (or an
     * empty value) is left out rather than rendered as {@code label=""}, which PromQL reads the same way.
     */
    private static Tags presentTags(MetricDef def, Map<String, String> attrs) {
        List<Tag> t = new ArrayList<>(def.attributes().size());
        for (AttributeDef a : def.attributes()) {
            String v = attrs.get(a.name());
            if (v != null && !v.isEmpty()) {
                t.add(Tag.of(MetricDef.labelName(a.name()), v));
            }
        }
        return Tags.of(t);
    }

    /** True when the Accept header asks for OpenMetrics. */
    public static boolean wantsOpenMetrics(String accept) {
        return accept != null && accept.contains("application/openmetrics-text");
    }

    public String contentType(String accept) {
        return wantsOpenMetrics(accept) ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE;
    }

    /** Renders the exposition for the given Accept header, with target_info carrying the resource attributes. */
    public String scrape(String accept) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(4096);
        try {
            scrape(accept, out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Streams the exposition for the given Accept header to {@code out}: target_info first, then each
     * metric's registry in the order of family names (the order one registry renders in). Micrometer
     * renders each (a Timer's histogram and its _max gauge together) and writes it through its own
     * small buffers, so what a scrape holds at once is one metric's samples, not the whole exposition:
     * the allocation of a scrape is short-lived and the 2 MiB young generation absorbs it
     * (docs/performance.md, "Scrape scaling"). OpenMetrics gets one {@code # EOF}, at the end.
     */
    public void scrape(String accept, java.io.OutputStream out) throws java.io.IOException {
        scrape(accept, out, true);
    }

    /**
     * {@code planned}: registries whose meters have not changed since their last rendering are written
     * from their {@link ExpositionPlan} (the same bytes without Micrometer's per-sample objects); false
     * renders everything through Micrometer (tests compare the two).
     */
    void scrape(String accept, java.io.OutputStream out, boolean planned) throws java.io.IOException {
        Runnable refresh = beforeScrape;
        if (refresh != null) {
            try {
                refresh.run();
            } catch (RuntimeException e) {
                LOG.warn("refreshing before a scrape failed: {}", e.toString());
            }
        }
        boolean om = wantsOpenMetrics(accept);
        String type = om ? OPENMETRICS_CONTENT_TYPE : TEXT_CONTENT_TYPE;
        ExpositionFormatWriter writer = formats.findWriter(type);
        out.write(om ? targetInfoOpenMetrics : targetInfoText);
        // The writer flushes at the end of every call: passed on to a response, each flush would send a
        // chunk of its own. The caller flushes once, at the end.
        java.io.OutputStream unflushed = new NoFlush(out);
        EofHold body = om ? new EofHold(unflushed) : null;
        java.io.OutputStream target = om ? body : unflushed;
        // Families are collected registry by registry and written in batches of about BATCH_POINTS data
        // points: each write call allocates its own character and byte buffers (some 24 KiB), so one call
        // per metric would cost more than the samples themselves at a few hundred series, while one call
        // for everything would hold the whole exposition at once.
        List<io.prometheus.metrics.model.snapshots.MetricSnapshot> batch = new ArrayList<>();
        int points = 0;
        int format = om ? 1 : 0;
        byte[] planBuffer = null;
        for (PrometheusMeterRegistry r : byFamily.values()) {
            Plans p = planned ? plans.get(r) : null;
            if (p != null && p.lock.tryLock()) {
                try {
                    if (!batch.isEmpty()) {
                        write(writer, target, body, batch);
                        batch.clear();
                        points = 0;
                    }
                    if (planBuffer == null) {
                        planBuffer = new byte[8192];
                    }
                    planned(r, p, format, writer, unflushed, planBuffer);
                } finally {
                    p.lock.unlock();
                }
                continue;
            }
            for (io.prometheus.metrics.model.snapshots.MetricSnapshot m : r.getPrometheusRegistry().scrape()) {
                batch.add(om ? withUnit(m) : m);
                points += m.getDataPoints().size();
            }
            if (points >= BATCH_POINTS) {
                write(writer, target, body, batch);
                batch.clear();
                points = 0;
            }
        }
        if (!batch.isEmpty()) {
            write(writer, target, body, batch);
        }
        if (body != null) {
            out.write(EOF);
        }
    }

    /**
     * The unit of each catalog family whose name ends with it ({@code _seconds}, {@code _bytes},
     * {@code _ratio}, {@code _per_second}, ...), as OpenMetrics declares it in a {@code # UNIT} line: the
     * specification allows a unit only where it is the name's suffix. Keyed by the family name (a counter's
     * without {@code _total}).
     */
    private static final Map<String, io.prometheus.metrics.model.snapshots.Unit> UNITS = units();

    private static Map<String, io.prometheus.metrics.model.snapshots.Unit> units() {
        Map<String, io.prometheus.metrics.model.snapshots.Unit> out = new HashMap<>();
        for (MetricDef def : Catalog.all()) {
            String unit = def.baseUnit();
            String family = def.prometheusName();
            if (def.instrument() == Instrument.COUNTER && family.endsWith("_total")) {
                family = family.substring(0, family.length() - "_total".length());
            }
            if (unit != null && family.endsWith("_" + unit)) {
                out.put(family, new io.prometheus.metrics.model.snapshots.Unit(unit));
            }
        }
        return Map.copyOf(out);
    }

    /** {@code m} with its catalog unit in the metadata (the OpenMetrics writer then writes {@code # UNIT}). */
    static io.prometheus.metrics.model.snapshots.MetricSnapshot withUnit(io.prometheus.metrics.model.snapshots.MetricSnapshot m) {
        io.prometheus.metrics.model.snapshots.MetricMetadata md = m.getMetadata();
        io.prometheus.metrics.model.snapshots.Unit unit = md.hasUnit() ? null : UNITS.get(md.getName());
        if (unit == null) {
            return m;
        }
        io.prometheus.metrics.model.snapshots.MetricMetadata withUnit =
                new io.prometheus.metrics.model.snapshots.MetricMetadata(md.getName(), md.getHelp(), unit);
        if (m instanceof io.prometheus.metrics.model.snapshots.GaugeSnapshot g) {
            return new io.prometheus.metrics.model.snapshots.GaugeSnapshot(withUnit, g.getDataPoints());
        }
        if (m instanceof io.prometheus.metrics.model.snapshots.CounterSnapshot c) {
            return new io.prometheus.metrics.model.snapshots.CounterSnapshot(withUnit, c.getDataPoints());
        }
        if (m instanceof io.prometheus.metrics.model.snapshots.HistogramSnapshot h) {
            return new io.prometheus.metrics.model.snapshots.HistogramSnapshot(h.isGaugeHistogram(), withUnit, h.getDataPoints());
        }
        return m;
    }

    /**
     * Writes registry {@code r} from its plan for {@code format}, making the plan first (from Micrometer's
     * rendering of {@code r}, which this scrape then writes) when there is none for the registry's current
     * meters. Called with {@code p}'s lock held; nothing is held back in the EOF filter between calls,
     * so the bytes go straight to {@code out}.
     */
    private static void planned(PrometheusMeterRegistry r, Plans p, int format, ExpositionFormatWriter writer,
                                java.io.OutputStream out, byte[] buffer) throws java.io.IOException {
        int version = p.version;
        ExpositionPlan plan = p.madeAt[format] == version ? p.byFormat[format] : null;
        if (plan != null) {
            plan.write(out, buffer);
            return;
        }
        List<Meter> meters = r.getMeters();
        Rendered rendered = new Rendered();
        EofHold noEof = new EofHold(rendered);
        io.prometheus.metrics.model.snapshots.MetricSnapshots snapshots = r.getPrometheusRegistry().scrape();
        if (format == 1) {
            // OpenMetrics: the catalog's units (# UNIT lines), as on the unplanned path
            List<io.prometheus.metrics.model.snapshots.MetricSnapshot> withUnits = new ArrayList<>();
            for (io.prometheus.metrics.model.snapshots.MetricSnapshot m : snapshots) {
                withUnits.add(withUnit(m));
            }
            snapshots = new io.prometheus.metrics.model.snapshots.MetricSnapshots(withUnits);
        }
        writer.write(noEof, snapshots);
        noEof.endCall();
        for (int at = 0; at < rendered.size(); at += 8192) {
            out.write(rendered.bytes(), at, Math.min(8192, rendered.size() - at));
        }
        if (p.version != version || p.misses[format] >= MAX_PLAN_MISSES && p.madeAt[format] == -version - 2) {
            return;
        }
        plan = ExpositionPlan.of(rendered.bytes(), rendered.size(), meters);
        if (plan == null) {
            // Not kept: try again on a later scrape, a few times per meter set.
            int misses = p.madeAt[format] == -version - 2 ? p.misses[format] + 1 : 1;
            p.misses[format] = misses;
            p.madeAt[format] = -version - 2;
            p.byFormat[format] = null;
            return;
        }
        p.byFormat[format] = plan;
        p.madeAt[format] = version;
    }

    /** A byte buffer whose bytes are read in place (no copy of a registry's rendering). */
    private static final class Rendered extends java.io.ByteArrayOutputStream {
        Rendered() {
            super(8192);
        }

        byte[] bytes() {
            return buf;
        }
    }

    /** Registries written from a plan kept for their current meters, in the given format (tests). */
    int plansInUse(String accept) {
        int format = wantsOpenMetrics(accept) ? 1 : 0;
        return (int) plans.values().stream().filter(p -> p.madeAt[format] == p.version && p.byFormat[format] != null).count();
    }

    /** The first family of each registry not written from a plan in the given format (tests). */
    List<String> unplanned(String accept) {
        int format = wantsOpenMetrics(accept) ? 1 : 0;
        List<String> names = new ArrayList<>();
        byFamily.forEach((name, r) -> {
            Plans p = plans.get(r);
            if (p != null && !(p.madeAt[format] == p.version && p.byFormat[format] != null)) {
                names.add(name);
            }
        });
        return names;
    }

    /** Metric registries that can have plans (tests). */
    int plannable() {
        return plans.size();
    }

    /** Plans made for one meter set that did not match before its registry is left to Micrometer until its meters change. */
    private static final int MAX_PLAN_MISSES = 3;

    /** Data points written by one call of the exposition writer (see {@link #scrape(String, java.io.OutputStream)}). */
    static final int BATCH_POINTS = 256;

    private static void write(ExpositionFormatWriter writer, java.io.OutputStream target, EofHold body,
                              List<io.prometheus.metrics.model.snapshots.MetricSnapshot> batch) throws java.io.IOException {
        writer.write(target, new MetricSnapshots(batch));
        if (body != null) {
            body.endCall();
        }
    }

    /** Passes writes on and holds flushes back. */
    private static final class NoFlush extends java.io.FilterOutputStream {
        NoFlush(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            out.write(b, off, len);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }

    private static final byte[] EOF = "# EOF\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Writes OpenMetrics families rendered one call at a time as one exposition: every call ends with
     * {@code # EOF}, so the last bytes written are held back and dropped at {@link #endCall()} when
     * they are that line; the caller writes the one {@code # EOF} the exposition ends with.
     */
    static final class EofHold extends java.io.FilterOutputStream {
        private final byte[] tail = new byte[EOF.length];
        private int held;

        EofHold(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws java.io.IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            if (len >= tail.length) {
                out.write(tail, 0, held);
                out.write(b, off, len - tail.length);
                System.arraycopy(b, off + len - tail.length, tail, 0, tail.length);
                held = tail.length;
                return;
            }
            int overflow = held + len - tail.length;
            if (overflow > 0) {
                out.write(tail, 0, overflow);
                System.arraycopy(tail, overflow, tail, 0, held - overflow);
                held -= overflow;
            }
            System.arraycopy(b, off, tail, held, len);
            held += len;
        }

        /** One rendering call is done: drop its {@code # EOF}, write anything else held. */
        void endCall() throws java.io.IOException {
            if (!(held == EOF.length && java.util.Arrays.equals(tail, EOF))) {
                out.write(tail, 0, held);
            }
            held = 0;
        }

        @Override
        public void close() throws java.io.IOException {
            flush(); // the response stream is the caller's to close
        }
    }

    private static String labels(Map<String, String> attrs) {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(attrs).entrySet()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            b.append(MetricDef.labelName(e.getKey())).append("=\"")
                    .append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n"))
                    .append('"');
        }
        return b.append('}').toString();
    }
}
