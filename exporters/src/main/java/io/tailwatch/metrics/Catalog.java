package io.tailwatch.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Every metric the agent exports, in the order of the metric reference. */
public final class Catalog {
    private static final List<MetricDef> ALL = build();

    private Catalog() {
    }

    private static List<MetricDef> build() {
        List<MetricDef> all = new ArrayList<>();
        all.addAll(HostMetrics.ALL);
        all.addAll(EngineMetrics.ALL);
        all.addAll(ProbeMetrics.ALL);
        all.addAll(EngineSideMetrics.ALL);
        all.addAll(ReadinessMetrics.ALL);
        all.addAll(ProxyMetrics.ALL);
        all.addAll(EnergyMetrics.ALL);
        all.addAll(AlertMetrics.ALL);
        all.addAll(SelfMetrics.ALL);
        Set<String> names = new HashSet<>();
        Set<String> promNames = new HashSet<>();
        for (MetricDef d : all) {
            if (!names.add(d.name())) {
                throw new IllegalStateException("metric declared twice: " + d.name());
            }
            if (!promNames.add(d.prometheusName())) {
                throw new IllegalStateException("two metrics map to one Prometheus name: " + d.prometheusName());
            }
        }
        return List.copyOf(all);
    }

    public static List<MetricDef> all() {
        return ALL;
    }

    public static MetricDef byName(String name) {
        for (MetricDef d : ALL) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        return null;
    }
}
