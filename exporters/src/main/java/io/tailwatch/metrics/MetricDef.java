package io.tailwatch.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One metric, declared once: OpenTelemetry-style name, UCUM unit, instrument, description,
 * attributes and (for histograms) explicit bucket boundaries. Both exporters and the metric
 * reference are derived from these declarations.
 */
public record MetricDef(String name, String unit, Instrument instrument, String description,
                        List<AttributeDef> attributes, List<Double> buckets) {

    public MetricDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(instrument, "instrument");
        Objects.requireNonNull(description, "description");
        attributes = List.copyOf(attributes);
        buckets = List.copyOf(buckets);
        if (instrument == Instrument.HISTOGRAM && buckets.isEmpty()) {
            throw new IllegalArgumentException(name + ": a histogram needs explicit buckets");
        }
    }

    public static MetricDef gauge(String name, String unit, String description, AttributeDef... attributes) {
        return new MetricDef(name, unit, Instrument.GAUGE, description, List.of(attributes), List.of());
    }

    public static MetricDef counter(String name, String unit, String description, AttributeDef... attributes) {
        return new MetricDef(name, unit, Instrument.COUNTER, description, List.of(attributes), List.of());
    }

    public static MetricDef upDownCounter(String name, String unit, String description, AttributeDef... attributes) {
        return new MetricDef(name, unit, Instrument.UPDOWNCOUNTER, description, List.of(attributes), List.of());
    }

    public static MetricDef histogram(String name, String unit, String description, List<Double> buckets,
                                      AttributeDef... attributes) {
        return new MetricDef(name, unit, Instrument.HISTOGRAM, description, List.of(attributes), buckets);
    }

    public List<String> attributeNames() {
        List<String> names = new ArrayList<>(attributes.size());
        for (AttributeDef a : attributes) {
            names.add(a.name());
        }
        return names;
    }

    public AttributeDef attribute(String attributeName) {
        for (AttributeDef a : attributes) {
            if (a.name().equals(attributeName)) {
                return a;
            }
        }
        return null;
    }

    /**
     * The base unit Micrometer appends to the Prometheus name, from the UCUM unit, by the rules Prometheus
     * applies to the same metric pushed over OTLP (its otlptranslator: unit_namer.go), so a scrape and a push
     * name every series alike: "By" becomes bytes, "s" seconds, "W" watts, "J" joules, "Hz" hertz, "Cel"
     * celsius, "1" ratio (OTLP adds that to gauges only; the catalog has no other instrument with unit 1);
     * annotations such as "{token}" add nothing, and a "per" unit adds per_second and so on
     * ("{token}/s" -> per_second).
     */
    public String baseUnit() {
        int slash = unit.indexOf('/');
        String main = slash < 0 ? unit : unit.substring(0, slash);
        String per = slash < 0 ? "" : perUnit(unit.substring(slash + 1));
        String m = mainUnit(main);
        if (per.isEmpty()) {
            return m;
        }
        return m == null || m.equals("ratio") ? per : m + "_" + per;
    }

    private static String mainUnit(String u) {
        return switch (u) {
            case "By" -> "bytes";
            case "s" -> "seconds";
            case "W" -> "watts";
            case "J" -> "joules";
            case "Hz" -> "hertz";
            case "Cel" -> "celsius";
            case "rpm" -> "rpm";
            case "1" -> "ratio";
            default -> null;
        };
    }

    private static String perUnit(String u) {
        return switch (u) {
            case "s" -> "per_second";
            case "m" -> "per_minute";
            case "h" -> "per_hour";
            case "d" -> "per_day";
            default -> "";
        };
    }

    /** The metric family name as it appears in the Prometheus exposition (without _bucket/_sum/_count). */
    public String prometheusName() {
        String base = name.replace('.', '_').toLowerCase(Locale.ROOT);
        String bu = baseUnit();
        if (bu != null && !base.endsWith("_" + bu)) {
            base = base + "_" + bu;
        }
        if (instrument == Instrument.COUNTER) {
            base = base + "_total";
        }
        return base;
    }

    /** Prometheus label name for an attribute. */
    public static String labelName(String attribute) {
        return attribute.replace('.', '_');
    }
}
