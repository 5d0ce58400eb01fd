package io.tailwatch.metrics;

import java.util.stream.Collectors;

/** Renders the metric reference (docs/metrics.md and `tailwatch metrics`) from the catalog. */
public final class MetricsReference {
    private MetricsReference() {
    }

    public static String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("# Metric reference\n\n");
        b.append("Generated from the catalog (`tailwatch metrics` prints this text). Every metric is exported over\n");
        b.append("OTLP under its OpenTelemetry name and on `/metrics` under its Prometheus name. A signal the host\n");
        b.append("cannot read is absent, never 0. Resource attributes (`service.name`, `service.version`, `host.name`,\n");
        b.append("`host.arch`, `os.type`, `os.version`, and on macOS `host.cpu.model` and `host.model`) arrive as the\n");
        b.append("OTLP resource and as the labels of `target_info` on `/metrics`.\n\n");
        b.append("| OpenTelemetry name | Prometheus name | Instrument | Unit | Attributes | Description |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (MetricDef d : Catalog.all()) {
            String attrs = d.attributes().isEmpty() ? "" : d.attributes().stream()
                    .map(a -> "`" + a.name() + "`" + (a.allowed().isEmpty() ? "" : " (" + String.join(", ", a.allowed()) + ")"))
                    .collect(Collectors.joining("; "));
            b.append("| `").append(d.name()).append("` | `").append(d.prometheusName()).append("` | ")
                    .append(d.instrument().name().toLowerCase()).append(" | `").append(d.unit()).append("` | ")
                    .append(attrs).append(" | ").append(d.description().replace("|", "\\|"));
            if (!d.buckets().isEmpty()) {
                b.append(" Buckets: ").append(d.buckets().stream().map(MetricsReference::num).collect(Collectors.joining(", "))).append('.');
            }
            b.append(" |\n");
        }
        return b.toString();
    }

    private static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
