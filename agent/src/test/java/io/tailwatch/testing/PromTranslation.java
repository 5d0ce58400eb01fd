package io.tailwatch.testing;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * OTLP metrics as Prometheus stores them when they arrive through an OpenTelemetry Collector's
 * {@code prometheusremotewrite} exporter (or Prometheus' own OTLP receiver) with the default translation
 * strategy, UnderscoreEscapingWithSuffixes, and {@code resource_to_telemetry_conversion} on, as the kit's
 * {@code otel-collector.yaml} sets it. The rules are those of the Prometheus otlptranslator library
 * (metric_namer.go {@code normalizeName}, unit_namer.go {@code buildUnitSuffixes}, label_namer.go
 * {@code Build}), written out here because no Go toolchain runs in the test suite; {@code PromTranslationTest}
 * holds this class to cases of that library's own test tables. What it does not model (exemplars,
 * exponential histograms, summaries, delta temporality, which remote write drops) the agent does not send.
 */
public final class PromTranslation {
    private PromTranslation() {
    }

    /** Prometheus' staleness marker: the NaN with this bit pattern ends a series at its timestamp. */
    public static final double STALE_NAN = Double.longBitsToDouble(0x7ff0000000000002L);

    /**
     * A point flagged NO_RECORDED_VALUE (DataPointFlags bit 0): the receiver writes a staleness marker for each of
     * its samples, as Prometheus' OTLP receiver does.
     */
    static boolean ended(int flags) {
        return (flags & 1) != 0;
    }

    /** otlptranslator's metric types, as far as the agent's instruments reach. */
    public enum Type { GAUGE, MONOTONIC_COUNTER, NON_MONOTONIC_COUNTER, HISTOGRAM }

    /** One Prometheus sample: labels (with __name__), value, timestamp in milliseconds. */
    public record Sample(Map<String, String> labels, double value, long timestampMillis) {
        public String name() {
            return labels.get("__name__");
        }

        /** The sample as a line of the text exposition format, with its timestamp. */
        public String textLine() {
            StringBuilder b = new StringBuilder(name()).append('{');
            boolean first = true;
            for (Map.Entry<String, String> e : labels.entrySet()) {
                if (e.getKey().equals("__name__")) {
                    continue;
                }
                if (!first) {
                    b.append(',');
                }
                first = false;
                b.append(e.getKey()).append("=\"").append(e.getValue().replace("\\", "\\\\").replace("\"", "\\\"")
                        .replace("\n", "\\n")).append('"');
            }
            return b.append("} ").append(format(value)).append(' ').append(timestampMillis).toString();
        }
    }

    private static final Map<String, String> UNITS = Map.ofEntries(
            Map.entry("d", "days"), Map.entry("h", "hours"), Map.entry("min", "minutes"), Map.entry("s", "seconds"),
            Map.entry("ms", "milliseconds"), Map.entry("us", "microseconds"), Map.entry("ns", "nanoseconds"),
            Map.entry("By", "bytes"), Map.entry("KiBy", "kibibytes"), Map.entry("MiBy", "mebibytes"),
            Map.entry("GiBy", "gibibytes"), Map.entry("TiBy", "tibibytes"), Map.entry("KBy", "kilobytes"),
            Map.entry("MBy", "megabytes"), Map.entry("GBy", "gigabytes"), Map.entry("TBy", "terabytes"),
            Map.entry("m", "meters"), Map.entry("V", "volts"), Map.entry("A", "amperes"), Map.entry("J", "joules"),
            Map.entry("W", "watts"), Map.entry("g", "grams"), Map.entry("Cel", "celsius"), Map.entry("Hz", "hertz"),
            Map.entry("1", ""), Map.entry("%", "percent"));
    private static final Map<String, String> PER_UNITS = Map.of("s", "second", "m", "minute", "h", "hour", "d", "day",
            "w", "week", "mo", "month", "y", "year");

    private static boolean validChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ':';
    }

    /** Splits on every character outside [a-zA-Z0-9:] (underscores included), dropping empty tokens. */
    private static List<String> tokens(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (validChar(c)) {
                cur.append(c);
            } else if (cur.length() > 0) {
                out.add(cur.toString());
                cur.setLength(0);
            }
        }
        if (cur.length() > 0) {
            out.add(cur.toString());
        }
        return out;
    }

    /** Invalid characters to '_', runs of '_' to one, no leading '_' (cleanUpUnit). */
    private static String cleanUpUnit(String unit) {
        StringBuilder b = new StringBuilder();
        for (char c : unit.toCharArray()) {
            char m = validChar(c) ? c : '_';
            if (m == '_' && b.length() > 0 && b.charAt(b.length() - 1) == '_') {
                continue;
            }
            b.append(m);
        }
        String s = b.toString();
        return s.startsWith("_") ? s.substring(1) : s;
    }

    /** The main and "per" unit suffixes of a UCUM unit (buildUnitSuffixes): "By/s" -> bytes, per_second. */
    static String[] unitSuffixes(String unit) {
        String[] parts = unit.split("/", 2);
        String main = "";
        String per = "";
        String m = parts[0].strip();
        if (!m.isEmpty() && !m.contains("{") && !m.contains("}")) {
            main = UNITS.getOrDefault(m, m);
        }
        if (parts.length > 1 && !parts[1].isEmpty()) {
            String p = parts[1].strip();
            if (!p.isEmpty() && !p.contains("{") && !p.contains("}")) {
                per = PER_UNITS.getOrDefault(p, p);
            }
            if (!per.isEmpty()) {
                per = "per_" + per;
            }
        }
        return new String[] {main, per};
    }

    /** The Prometheus metric name of an OTLP metric (normalizeName, no namespace). */
    public static String metricName(String name, String unit, Type type) {
        List<String> t = tokens(name);
        String[] suffixes = unitSuffixes(unit);
        String main = cleanUpUnit(suffixes[0]);
        String per = cleanUpUnit(suffixes[1]);
        if (t.contains(main)) {
            main = "";
        }
        if (per.equals("per_")) {
            per = "";
        } else {
            per = per.endsWith("_") ? per.substring(0, per.length() - 1) : per;
            if (t.contains(per)) {
                per = "";
            }
        }
        if (!per.isEmpty() && main.endsWith("_")) {
            main = main.substring(0, main.length() - 1);
        }
        if (!main.isEmpty()) {
            t.add(main);
        }
        if (!per.isEmpty()) {
            t.add(per);
        }
        if (type == Type.MONOTONIC_COUNTER) {
            t.removeIf("total"::equals);
            t.add("total");
        }
        if (unit.equals("1") && type == Type.GAUGE) {
            t.removeIf("ratio"::equals);
            t.add("ratio");
        }
        String out = String.join("_", t);
        if (!out.isEmpty() && Character.isDigit(out.charAt(0))) {
            out = "_" + out;
        }
        return out;
    }

    /** The Prometheus label name of an attribute (LabelNamer.Build, UTF-8 not allowed, underscores collapsed). */
    public static String labelName(String key) {
        if (key.isEmpty()) {
            throw new IllegalArgumentException("label name is empty");
        }
        StringBuilder b = new StringBuilder();
        for (char c : key.toCharArray()) {
            char m = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
            if (m == '_' && b.length() > 0 && b.charAt(b.length() - 1) == '_') {
                continue;
            }
            b.append(m);
        }
        String s = b.toString();
        if (Character.isDigit(s.charAt(0))) {
            s = "key_" + s;
        }
        if (s.chars().allMatch(c -> c == '_')) {
            throw new IllegalArgumentException("normalization for label name \"" + key + "\" resulted in invalid name \"" + s + "\"");
        }
        return s;
    }

    private static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case INT_VALUE -> Long.toString(v.getIntValue());
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case DOUBLE_VALUE -> format(v.getDoubleValue());
            default -> v.toString();
        };
    }

    private static String format(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "+Inf" : "-Inf";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }

    /** Attributes to labels; two keys that sanitize to one label are joined with ';' in key order, as the library does. */
    private static void putAll(Map<String, String> labels, List<KeyValue> attrs) {
        Map<String, String> sorted = new TreeMap<>();
        for (KeyValue kv : attrs) {
            sorted.put(kv.getKey(), text(kv.getValue()));
        }
        for (Map.Entry<String, String> e : sorted.entrySet()) {
            labels.merge(labelName(e.getKey()), e.getValue(), (a, b) -> a + ";" + b);
        }
    }

    /**
     * Every sample of one export request: gauges and sums by name, histograms as _bucket (cumulative, with
     * le), _sum and _count, and one target_info per resource. job is service.namespace/service.name (or
     * service.name), instance service.instance.id; every resource attribute is also a label on every series
     * (resource_to_telemetry_conversion), and target_info carries those other than the three identifying ones.
     */
    public static List<Sample> translate(ExportMetricsServiceRequest request) {
        return translate(request, null);
    }

    /**
     * As {@link #translate(ExportMetricsServiceRequest)}, as Prometheus' own OTLP receiver does it: only the
     * resource attributes in {@code promoted} (its {@code otlp.promote_resource_attributes}) become labels on
     * every series; the rest are on target_info only. {@code promoted} null: every attribute
     * (the Collector's resource_to_telemetry_conversion).
     */
    public static List<Sample> translate(ExportMetricsServiceRequest request, java.util.Set<String> promoted) {
        List<Sample> out = new ArrayList<>();
        for (ResourceMetrics rm : request.getResourceMetricsList()) {
            Map<String, String> res = new LinkedHashMap<>();
            for (KeyValue kv : rm.getResource().getAttributesList()) {
                res.put(kv.getKey(), text(kv.getValue()));
            }
            String service = res.get("service.name");
            String ns = res.get("service.namespace");
            String job = service == null ? null : (ns == null || ns.isEmpty() ? service : ns + "/" + service);
            String instance = res.get("service.instance.id");
            Map<String, String> base = new TreeMap<>();
            putAll(base, rm.getResource().getAttributesList().stream()
                    .filter(kv -> promoted == null || promoted.contains(kv.getKey())).toList());
            if (job != null) {
                base.put("job", job);
            }
            if (instance != null) {
                base.put("instance", instance);
            }
            long latest = 0;
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                for (Metric m : sm.getMetricsList()) {
                    latest = Math.max(latest, metric(m, base, out));
                }
            }
            Map<String, String> info = new TreeMap<>();
            List<KeyValue> other = rm.getResource().getAttributesList().stream().filter(kv -> !kv.getKey().equals("service.name")
                    && !kv.getKey().equals("service.namespace") && !kv.getKey().equals("service.instance.id")).toList();
            if (!other.isEmpty() && latest > 0) {
                putAll(info, other);
                info.put("job", job == null ? "" : job);
                info.put("instance", instance == null ? "" : instance);
                info.put("__name__", "target_info");
                out.add(new Sample(info, 1, latest));
            }
        }
        return out;
    }

    private static long metric(Metric m, Map<String, String> base, List<Sample> out) {
        long latest = 0;
        switch (m.getDataCase()) {
            case GAUGE -> {
                String name = metricName(m.getName(), m.getUnit(), Type.GAUGE);
                for (NumberDataPoint p : m.getGauge().getDataPointsList()) {
                    latest = Math.max(latest, number(name, p, base, out));
                }
            }
            case SUM -> {
                if (m.getSum().getAggregationTemporality() != AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
                    return 0; // remote write drops delta sums
                }
                Type type = m.getSum().getIsMonotonic() ? Type.MONOTONIC_COUNTER : Type.NON_MONOTONIC_COUNTER;
                String name = metricName(m.getName(), m.getUnit(), type);
                for (NumberDataPoint p : m.getSum().getDataPointsList()) {
                    latest = Math.max(latest, number(name, p, base, out));
                }
            }
            case HISTOGRAM -> {
                if (m.getHistogram().getAggregationTemporality() != AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
                    return 0;
                }
                String name = metricName(m.getName(), m.getUnit(), Type.HISTOGRAM);
                for (HistogramDataPoint p : m.getHistogram().getDataPointsList()) {
                    long ts = p.getTimeUnixNano() / 1_000_000;
                    latest = Math.max(latest, ts);
                    Map<String, String> labels = new TreeMap<>(base);
                    putAll(labels, p.getAttributesList());
                    long cumulative = 0;
                    List<Double> bounds = p.getExplicitBoundsList();
                    for (int i = 0; i < p.getBucketCountsCount(); i++) {
                        cumulative += p.getBucketCounts(i);
                        double le = i < bounds.size() ? bounds.get(i) : Double.POSITIVE_INFINITY;
                        Map<String, String> b = new TreeMap<>(labels);
                        b.put("le", format(le));
                        b.put("__name__", name + "_bucket");
                        out.add(new Sample(b, ended(p.getFlags()) ? STALE_NAN : cumulative, ts));
                    }
                    if (p.hasSum()) {
                        Map<String, String> s = new TreeMap<>(labels);
                        s.put("__name__", name + "_sum");
                        out.add(new Sample(s, ended(p.getFlags()) ? STALE_NAN : p.getSum(), ts));
                    }
                    Map<String, String> c = new TreeMap<>(labels);
                    c.put("__name__", name + "_count");
                    out.add(new Sample(c, ended(p.getFlags()) ? STALE_NAN : p.getCount(), ts));
                }
            }
            default -> {
                // exponential histograms and summaries: the agent sends none
            }
        }
        return latest;
    }

    private static long number(String name, NumberDataPoint p, Map<String, String> base, List<Sample> out) {
        long ts = p.getTimeUnixNano() / 1_000_000;
        Map<String, String> labels = new TreeMap<>(base);
        putAll(labels, p.getAttributesList());
        labels.put("__name__", name);
        double v = p.getValueCase() == NumberDataPoint.ValueCase.AS_INT ? p.getAsInt() : p.getAsDouble();
        out.add(new Sample(labels, ended(p.getFlags()) ? STALE_NAN : v, ts));
        return ts;
    }

    /** Label names of a sample set, for checks. */
    public static List<String> names(List<Sample> samples) {
        return Arrays.asList(samples.stream().map(Sample::name).distinct().sorted().toArray(String[]::new));
    }
}
