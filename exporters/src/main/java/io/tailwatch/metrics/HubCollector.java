package io.tailwatch.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Exemplars;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The hub's series as Prometheus client snapshots, read when a scrape asks: gauges, up-down counters and
 * counters from the hub's newest snapshot, histograms from its histogram series (the one recording of each,
 * which OTLP reads too). Nothing of the hub is kept between scrapes: only the families' metadata and, per
 * family, one client Labels object per label set of the last scrape (a series' labels are built and checked
 * once, and {@link RenderedChunks} can tell an unchanged series by them).
 *
 * <p>Family by family, as /metrics has always shown them: a gauge whose name ends in {@code _info} is an info
 * family; a histogram has the catalog's buckets and every declared label ({@code ""} when absent), and beside it
 * a {@code <name>_max} gauge of its largest value in the last two minutes; gauges and counters carry only the
 * labels a series has. Where a family's name ends with its unit the metadata says so (the OpenMetrics
 * {@code # UNIT} line).
 */
final class HubCollector implements MultiCollector {
    enum Kind { GAUGE, INFO, COUNTER, HISTOGRAM, MAX }

    /** One family the hub renders: its metadata and its label names, one per declared attribute. */
    record Family(String name, Kind kind, MetricMetadata metadata, List<AttributeDef> attributes, String[] labels,
                  double[] bounds) {
    }

    private static final Map<String, Family[]> FAMILIES = new ConcurrentHashMap<>();
    /** The families of every catalog metric (what {@link #getPrometheusNames} answers). */
    private static final List<String> CATALOG_NAMES = catalogNames();

    private final MetricHub hub;

    HubCollector(MetricHub hub) {
        this.hub = hub;
    }

    private static List<String> catalogNames() {
        List<String> names = new ArrayList<>();
        for (MetricDef def : Catalog.all()) {
            for (Family f : families(def)) {
                names.add(f.name());
            }
        }
        return List.copyOf(names);
    }

    /** The families of {@code def} (two for a histogram: itself and its {@code _max} gauge). */
    static Family[] families(MetricDef def) {
        return FAMILIES.computeIfAbsent(def.name(), k -> {
            String[] labels = new String[def.attributes().size()];
            for (int i = 0; i < labels.length; i++) {
                labels[i] = MetricDef.labelName(def.attributes().get(i).name());
            }
            String name = def.prometheusName();
            return switch (def.instrument()) {
                case COUNTER -> {
                    String family = name.substring(0, name.length() - "_total".length());
                    yield new Family[] {new Family(family, Kind.COUNTER, metadata(def, family), def.attributes(), labels, null)};
                }
                case HISTOGRAM -> {
                    double[] bounds = new double[def.buckets().size() + 1];
                    for (int i = 0; i < def.buckets().size(); i++) {
                        bounds[i] = def.buckets().get(i);
                    }
                    bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
                    yield new Family[] {new Family(name, Kind.HISTOGRAM, metadata(def, name), def.attributes(), labels, bounds),
                            new Family(name + "_max", Kind.MAX, new MetricMetadata(name + "_max", def.description()), def.attributes(), labels, null)};
                }
                default -> name.endsWith("_info")
                        ? new Family[] {new Family(name, Kind.INFO, new MetricMetadata(name.substring(0, name.length() - 5),
                                def.description()), def.attributes(), labels, null)}
                        : new Family[] {new Family(name, Kind.GAUGE, metadata(def, name), def.attributes(), labels, null)};
            };
        });
    }

    /** The metadata of {@code family}, with the unit where the name ends with it. */
    private static MetricMetadata metadata(MetricDef def, String family) {
        String unit = def.baseUnit();
        return unit != null && family.endsWith("_" + unit)
                ? new MetricMetadata(family, def.description(), new Unit(unit))
                : new MetricMetadata(family, def.description());
    }

    /**
     * Per family, the client Labels of each label set the last view had: a series keeps one Labels object from
     * scrape to scrape (built and checked by the client once, and the identity by which {@link RenderedChunks}
     * keeps its rendering). A set is found by its attribute map itself: the hub keeps one per series (across a
     * producer's publishes, and in every copy of a histogram series). Made again at every view, so a series gone
     * is forgotten and no more sets are kept than the hub has series.
     */
    private Map<String, Map<Map<String, String>, Labels>> labels = new java.util.HashMap<>();

    /**
     * The hub's series now, by family name (sorted, the exposition's order). One view is made at a time (the
     * label sets and orders it keeps are this collector's).
     */
    synchronized View view() {
        View v = new View();
        Map<String, Map<Map<String, String>, Labels>> now = new java.util.HashMap<>();
        for (Map.Entry<String, List<Point>> e : hub.snapshot().byMetric().entrySet()) {
            Family f = families(e.getValue().get(0).metric())[0];
            Row[] rows = new Row[e.getValue().size()];
            Map<Map<String, String>, Labels> sets = new java.util.IdentityHashMap<>(rows.length);
            now.put(f.name(), sets);
            int i = 0;
            for (Point p : e.getValue()) {
                rows[i++] = new Row(kept(f, sets, p.attributes(), () -> present(f, p.attributes())), p, null);
            }
            v.families.put(f.name(), new Rows(f, sorted(f.name(), rows)));
        }
        Map<String, List<HistogramSeries>> byMetric = new java.util.LinkedHashMap<>();
        for (HistogramSeries s : hub.histograms()) {
            byMetric.computeIfAbsent(s.metric().name(), k -> new ArrayList<>()).add(s);
        }
        for (List<HistogramSeries> series : byMetric.values()) {
            Family[] fs = families(series.get(0).metric());
            Row[] rows = new Row[series.size()];
            Map<Map<String, String>, Labels> sets = new java.util.IdentityHashMap<>(rows.length);
            now.put(fs[0].name(), sets);
            for (int i = 0; i < rows.length; i++) {
                Map<String, String> attrs = series.get(i).attributes();
                rows[i] = new Row(kept(fs[0], sets, attrs, () -> every(fs[0], attrs)), null, series.get(i));
            }
            rows = sorted(fs[0].name(), rows);
            for (Family f : fs) {
                v.families.put(f.name(), new Rows(f, rows));
            }
        }
        labels = now;
        return v;
    }

    /** The Labels of {@code attrs} in {@code f}'s view being made: those of the last view, or {@code make}'s. */
    private Labels kept(Family f, Map<Map<String, String>, Labels> sets, Map<String, String> attrs,
                        java.util.function.Supplier<Labels> make) {
        Labels l = sets.get(attrs);
        if (l == null) {
            l = labels.getOrDefault(f.name(), Map.of()).get(attrs);
            if (l == null) {
                l = make.get();
            }
            sets.put(attrs, l);
        }
        return l;
    }

    /** Label sets kept, over every family. */
    synchronized int labelSetsKept() {
        int n = 0;
        for (Map<Map<String, String>, Labels> sets : labels.values()) {
            n += sets.size();
        }
        return n;
    }

    /** Per family, where each label set stood in the last order computed (see {@link #sorted}). */
    private final Map<String, Map<Labels, Integer>> order = new ConcurrentHashMap<>();

    /**
     * In the order the writers write them (the snapshots' own order, by labels); of two series with the same
     * labels (two producers publishing one series) the later one stays, as it would have replaced the other.
     * While a family's series are ones it had at the last full sort, their places then order them (series
     * keep their Labels objects, so this is the same order, found without comparing labels).
     */
    private Row[] sorted(String family, Row[] rows) {
        Map<Labels, Integer> last = order.get(family);
        long[] places = last == null ? null : new long[rows.length];
        for (int i = 0; places != null && i < rows.length; i++) {
            Integer at = last.get(rows[i].labels());
            if (at == null) {
                places = null;
            } else {
                places[i] = (long) at << 32 | i;
            }
        }
        int n = 0;
        if (places != null) {
            // The places are of distinct label sets: two rows at one place have the same labels.
            java.util.Arrays.sort(places);
            Row[] byPlace = new Row[rows.length];
            for (int i = 0; i < rows.length; i++) {
                if (n > 0 && places[i] >>> 32 == places[i - 1] >>> 32) {
                    n--;
                }
                byPlace[n++] = rows[(int) places[i]];
            }
            rows = byPlace;
        } else {
            java.util.Arrays.sort(rows, (a, b) -> a.labels().compareTo(b.labels()));
            for (int i = 0; i < rows.length; i++) {
                if (n > 0 && rows[n - 1].labels().equals(rows[i].labels())) {
                    n--;
                }
                rows[n++] = rows[i];
            }
            Map<Labels, Integer> at = new java.util.IdentityHashMap<>(n * 2);
            for (int i = 0; i < n; i++) {
                at.put(rows[i].labels(), i);
            }
            order.put(family, at);
        }
        return n == rows.length ? rows : java.util.Arrays.copyOf(rows, n);
    }

    private static final long[] NOTHING = new long[0];

    /** One series of a family: its labels and where its value is (a point, or a histogram series). */
    record Row(Labels labels, Point point, HistogramSeries histogram) {
    }

    /** A family's series, in the exposition's order. */
    record Rows(Family family, Row[] rows) {
        /** Sample lines each series writes. */
        int linesPerSeries() {
            return family.kind() == Kind.HISTOGRAM ? family.bounds().length + 2 : 1;
        }

        /** Longs of {@link #key} per series (an info series always shows 1: nothing to compare). */
        int keyWidth() {
            return switch (family.kind()) {
                case HISTOGRAM -> 3;
                case INFO -> 0;
                default -> 1;
            };
        }

        /**
         * What series {@code i}'s rendering depends on besides its labels, into {@code key} ({@link #keyWidth}
         * longs): its value, or a histogram's count, sum and start (a series expired and admitted again is
         * another one).
         */
        void key(int i, long[] key) {
            Row r = rows[i];
            switch (family.kind()) {
                case HISTOGRAM -> {
                    key[0] = r.histogram().count();
                    key[1] = Double.doubleToRawLongBits(r.histogram().sum());
                    key[2] = r.histogram().startEpochNanos();
                }
                case INFO -> {
                }
                case MAX -> key[0] = Double.doubleToRawLongBits(r.histogram().windowMax());
                default -> key[0] = Double.doubleToRawLongBits(r.point().value());
            }
        }

        /**
         * What series {@code i} shows, read once: a gauge's, counter's or maximum's value (its bits), a
         * histogram's count per catalog bucket (the last one above every bound) and then its sum's bits; nothing
         * for an info series (its one sample is always 1).
         */
        long[] sample(int i) {
            Row r = rows[i];
            return switch (family.kind()) {
                case HISTOGRAM -> {
                    long[] counts = r.histogram().catalogCounts();
                    long[] out = java.util.Arrays.copyOf(counts, counts.length + 1);
                    out[counts.length] = Double.doubleToRawLongBits(r.histogram().sum());
                    yield out;
                }
                case INFO -> NOTHING;
                case MAX -> new long[] {Double.doubleToRawLongBits(r.histogram().windowMax())};
                default -> new long[] {Double.doubleToRawLongBits(r.point().value())};
            };
        }

        /** The snapshot of the series {@code at[0..n)} (indexes into {@link #rows}, ascending), of their {@link #sample}s. */
        MetricSnapshot snapshot(int[] at, long[][] samples, int n) {
            MetricMetadata md = family.metadata();
            switch (family.kind()) {
                case GAUGE, MAX -> {
                    List<GaugeDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        data.add(new GaugeDataPointSnapshot(Double.longBitsToDouble(samples[k][0]), rows[at[k]].labels(), null));
                    }
                    return new GaugeSnapshot(md, data);
                }
                case INFO -> {
                    List<InfoDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        data.add(new InfoDataPointSnapshot(rows[at[k]].labels()));
                    }
                    return new InfoSnapshot(md, data);
                }
                case COUNTER -> {
                    List<CounterDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        data.add(new CounterDataPointSnapshot(Double.longBitsToDouble(samples[k][0]), rows[at[k]].labels(), null, 0));
                    }
                    return new CounterSnapshot(md, data);
                }
                default -> {
                    List<HistogramDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        long[] s = samples[k];
                        data.add(new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(family.bounds(),
                                java.util.Arrays.copyOf(s, s.length - 1)), Double.longBitsToDouble(s[s.length - 1]),
                                rows[at[k]].labels(), Exemplars.EMPTY, 0));
                    }
                    return new HistogramSnapshot(md, data);
                }
            }
        }

        /** The snapshot of every series. */
        MetricSnapshot snapshot() {
            int[] all = new int[rows.length];
            long[][] samples = new long[rows.length][];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
                samples[i] = sample(i);
            }
            return snapshot(all, samples, all.length);
        }
    }

    /** What the hub held when a scrape began, family by family. */
    static final class View {
        final TreeMap<String, Rows> families = new TreeMap<>();
    }

    /** The labels a point has: absent or empty attributes are left out (PromQL reads both the same). */
    private static Labels present(Family f, Map<String, String> attrs) {
        int n = 0;
        for (String v : attrs.values()) {
            n += v.isEmpty() ? 0 : 1;
        }
        if (n == 0) {
            return Labels.EMPTY;
        }
        String[] names = new String[n];
        String[] values = new String[n];
        List<AttributeDef> defs = f.attributes();
        int at = 0;
        for (int i = 0; i < defs.size() && at < n; i++) {
            String v = attrs.get(defs.get(i).name());
            if (v != null && !v.isEmpty()) {
                names[at] = f.labels()[i];
                values[at++] = v;
            }
        }
        return Labels.of(names, values);
    }

    /** Every declared label, {@code ""} where the series has no value. */
    private static Labels every(Family f, Map<String, String> attrs) {
        List<AttributeDef> defs = f.attributes();
        String[] values = new String[defs.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = attrs.getOrDefault(defs.get(i).name(), "");
        }
        return Labels.of(f.labels().clone(), values);
    }

    @Override
    public MetricSnapshots collect() {
        return collect(name -> true);
    }

    @Override
    public MetricSnapshots collect(Predicate<String> includedNames) {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Rows rows : view().families.values()) {
            if (includedNames.test(rows.family().metadata().getPrometheusName())) {
                out.add(rows.snapshot());
            }
        }
        return new MetricSnapshots(out);
    }

    @Override
    public List<String> getPrometheusNames() {
        return CATALOG_NAMES;
    }

    /** Whether a family of this name is the hub's (the catalog's). */
    static boolean owns(String prometheusName) {
        return CATALOG_SET.contains(prometheusName);
    }

    private static final java.util.Set<String> CATALOG_SET = java.util.Set.copyOf(CATALOG_NAMES);
}
