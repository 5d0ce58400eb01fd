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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The hub's series as Prometheus client snapshots, read when a scrape asks: gauges, up-down counters and
 * counters from the hub's newest snapshot, histograms from its histogram series (the one recording of each,
 * which OTLP reads too). Nothing of the hub is kept between scrapes, only the families' metadata: what a
 * scrape keeps of a series (its rendering) is {@link RenderedChunks}', found by the attribute map the hub keeps
 * per series.
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
     * The hub's series now, by family name (sorted, the exposition's order); a family's series in the hub's
     * order, not yet the exposition's ({@link #order}). Nothing is kept from view to view.
     */
    TreeMap<String, Rows> view() {
        TreeMap<String, Rows> view = new TreeMap<>();
        for (List<Point> points : hub.snapshot().byMetric().values()) {
            Row[] rows = new Row[points.size()];
            for (int i = 0; i < rows.length; i++) {
                rows[i] = new Row(points.get(i).attributes(), points.get(i), null);
            }
            add(view, points.get(0).metric(), rows);
        }
        Map<String, List<Row>> histograms = new LinkedHashMap<>();
        for (HistogramSeries s : hub.histograms()) {
            histograms.computeIfAbsent(s.metric().name(), k -> new ArrayList<>()).add(new Row(s.attributes(), null, s));
        }
        for (List<Row> rows : histograms.values()) {
            add(view, rows.get(0).histogram().metric(), rows.toArray(new Row[0]));
        }
        return view;
    }

    private static void add(TreeMap<String, Rows> view, MetricDef def, Row[] rows) {
        for (Family f : families(def)) {
            view.put(f.name(), new Rows(f, rows));
        }
    }

    /**
     * Each row's place among label sets: their order by labels (the writers' order, the snapshots' own), the
     * row's index in the low 32 bits; equal label sets share a place.
     */
    static long[] places(Labels[] labels) {
        Integer[] byLabels = new Integer[labels.length];
        for (int i = 0; i < labels.length; i++) {
            byLabels[i] = i;
        }
        Arrays.sort(byLabels, (a, b) -> labels[a].compareTo(labels[b]));
        long[] places = new long[labels.length];
        long place = 0;
        for (int k = 0; k < labels.length; k++) {
            if (k > 0 && !labels[byLabels[k]].equals(labels[byLabels[k - 1]])) {
                place = k;
            }
            places[byLabels[k]] = place << 32 | byLabels[k];
        }
        return places;
    }

    /**
     * The rows in the exposition's order, from each one's place (high 32 bits) and index (low): sorted by
     * place, and of two rows at one place (two producers publishing one series) the later one, as it would
     * have replaced the other. Sorts {@code places}.
     */
    static int[] order(long[] places) {
        Arrays.sort(places);
        int[] order = new int[places.length];
        int n = 0;
        for (int k = 0; k < places.length; k++) {
            if (n > 0 && places[k] >>> 32 == places[k - 1] >>> 32) {
                n--;
            }
            order[n++] = (int) places[k];
        }
        return n == order.length ? order : Arrays.copyOf(order, n);
    }

    /** One series of a family: its attribute map (the hub keeps one per series) and where its value is. */
    record Row(Map<String, String> attributes, Point point, HistogramSeries histogram) {
    }

    /** A family's series. */
    record Rows(Family family, Row[] rows) {
        /** Sample lines each series writes. */
        int linesPerSeries() {
            return family.kind() == Kind.HISTOGRAM ? family.bounds().length + 2 : 1;
        }

        /** Longs of a {@link #sample}. */
        int sampleWidth() {
            return switch (family.kind()) {
                case HISTOGRAM -> family.bounds().length + 1;
                case INFO -> 0;
                default -> 1;
            };
        }

        /**
         * What series {@code i} shows, read once into {@code into}: a gauge's, counter's or maximum's value (its
         * bits), a histogram's count per catalog bucket (the last one above every bound) and then its sum's bits;
         * nothing for an info series (its one sample is always 1). Its rendering depends on nothing else.
         */
        void sample(int i, long[] into) {
            Row r = rows[i];
            switch (family.kind()) {
                case HISTOGRAM -> {
                    r.histogram().catalogCounts(into);
                    into[into.length - 1] = Double.doubleToRawLongBits(r.histogram().sum());
                }
                case INFO -> {
                }
                case MAX -> into[0] = Double.doubleToRawLongBits(r.histogram().windowMax());
                default -> into[0] = Double.doubleToRawLongBits(r.point().value());
            }
        }

        /** Series {@code i}'s labels: a histogram's (and its maximum's) every declared one, a point's present ones. */
        Labels labels(int i) {
            return HubCollector.labels(family, rows[i].attributes(), rows[i].point() == null);
        }

        /** The snapshot of {@code n} series, in the exposition's order: their labels and {@link #sample}s. */
        MetricSnapshot snapshot(Labels[] labels, long[][] samples, int n) {
            MetricMetadata md = family.metadata();
            switch (family.kind()) {
                case GAUGE, MAX -> {
                    List<GaugeDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        data.add(new GaugeDataPointSnapshot(Double.longBitsToDouble(samples[k][0]), labels[k], null));
                    }
                    return new GaugeSnapshot(md, data);
                }
                case INFO -> {
                    List<InfoDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        data.add(new InfoDataPointSnapshot(labels[k]));
                    }
                    return new InfoSnapshot(md, data);
                }
                case COUNTER -> {
                    List<CounterDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        data.add(new CounterDataPointSnapshot(Double.longBitsToDouble(samples[k][0]), labels[k], null, 0));
                    }
                    return new CounterSnapshot(md, data);
                }
                default -> {
                    List<HistogramDataPointSnapshot> data = new ArrayList<>(n);
                    for (int k = 0; k < n; k++) {
                        long[] s = samples[k];
                        data.add(new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(family.bounds(),
                                Arrays.copyOf(s, s.length - 1)), Double.longBitsToDouble(s[s.length - 1]),
                                labels[k], Exemplars.EMPTY, 0));
                    }
                    return new HistogramSnapshot(md, data);
                }
            }
        }

        /** Every series' labels, in the hub's order. */
        Labels[] labels() {
            Labels[] labels = new Labels[rows.length];
            for (int i = 0; i < rows.length; i++) {
                labels[i] = labels(i);
            }
            return labels;
        }

        /** The snapshot of every series. */
        MetricSnapshot snapshot() {
            Labels[] labels = labels();
            int[] order = order(places(labels));
            Labels[] ordered = new Labels[order.length];
            long[][] samples = new long[order.length][sampleWidth()];
            for (int k = 0; k < order.length; k++) {
                ordered[k] = labels[order[k]];
                sample(order[k], samples[k]);
            }
            return snapshot(ordered, samples, order.length);
        }
    }

    /**
     * The labels of {@code attrs} in family {@code f}, one per declared attribute: {@code every} one, {@code ""}
     * where the series has no value (a histogram's), or only those with a value (a point's: PromQL reads an
     * absent label and an empty one the same).
     */
    private static Labels labels(Family f, Map<String, String> attrs, boolean every) {
        List<String> names = new ArrayList<>(f.labels().length);
        List<String> values = new ArrayList<>(f.labels().length);
        for (int i = 0; i < f.labels().length; i++) {
            String v = attrs.getOrDefault(f.attributes().get(i).name(), "");
            if (every || !v.isEmpty()) {
                names.add(f.labels()[i]);
                values.add(v);
            }
        }
        return Labels.of(names, values);
    }

    @Override
    public MetricSnapshots collect() {
        return collect(name -> true);
    }

    @Override
    public MetricSnapshots collect(Predicate<String> includedNames) {
        List<MetricSnapshot> out = new ArrayList<>();
        for (Rows rows : view().values()) {
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
