package io.tailwatch.tools.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks the fleet side of the push path against what the kit's dashboards and rules query: a Prometheus
 * config's {@code otlp:} block (Prometheus 3's OTLP receiver), an OpenTelemetry Collector config's Prometheus
 * exporters, and this agent's own OTLP temporality. Each finding is a warning naming the file and the key.
 */
public final class FleetCheck {
    private FleetCheck() {
    }

    /** Largest fleet config read (a Prometheus or Collector config is a few KiB). */
    static final long MAX_BYTES = 1 << 20;
    /** The translation the dashboards and rules are written for (Prometheus 3's default). */
    public static final String SUPPORTED_STRATEGY = "UnderscoreEscapingWithSuffixes";
    /**
     * Translation strategies Prometheus 3 knows; only {@link #SUPPORTED_STRATEGY} names series the way the
     * dashboards and rules query them (the others keep the dots or drop the unit and _total suffixes).
     */
    static final Set<String> KNOWN_STRATEGIES = Set.of(SUPPORTED_STRATEGY, "UnderscoreEscapingWithoutSuffixes",
            "NoUTF8EscapingWithSuffixes", "NoTranslation");

    /** Warnings for the given fleet config files and this agent's environment; empty when all is as the kit needs. */
    public static List<String> warnings(List<Path> files, Map<String, String> env) {
        List<String> out = new ArrayList<>();
        String temporality = env.getOrDefault("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "cumulative")
                .strip().toLowerCase(Locale.ROOT);
        if (temporality.equals("delta") || temporality.equals("lowmemory")) {
            out.add("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=" + temporality + ": counters and histograms go"
                    + " out as deltas, which Prometheus drops (its OTLP receiver unless started with"
                    + " --enable-feature=otlp-deltatocumulative, and remote write always): leave it at cumulative");
        }
        for (Path f : files) {
            JsonNode root;
            try {
                if (Files.size(f) > MAX_BYTES) {
                    out.add(f + ": larger than " + MAX_BYTES + " bytes, not read");
                    continue;
                }
                root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(f));
            } catch (IOException | RuntimeException e) {
                out.add(f + ": cannot read it as YAML: " + e.getMessage());
                continue;
            }
            if (root == null || !root.isObject()) {
                out.add(f + ": not a YAML map");
                continue;
            }
            if (root.has("scrape_configs") || root.has("otlp") || root.has("global") || root.has("rule_files")) {
                prometheus(f, root, out);
            }
            if (root.has("exporters") && root.has("service")) {
                collector(f, root, out);
            }
        }
        return out;
    }

    private static void prometheus(Path f, JsonNode root, List<String> out) {
        JsonNode otlp = root.path("otlp");
        String strategy = otlp.path("translation_strategy").asText(SUPPORTED_STRATEGY);
        if (!strategy.equals(SUPPORTED_STRATEGY)) {
            out.add(f + ": otlp.translation_strategy " + strategy
                    + (KNOWN_STRATEGIES.contains(strategy) ? "" : " (not a strategy Prometheus knows)")
                    + ": the tailwatch dashboards and rules query the names " + SUPPORTED_STRATEGY
                    + " gives (underscores, unit and _total suffixes); with this one most of them come back empty");
        }
        boolean promotesHost = false;
        for (JsonNode a : otlp.path("promote_resource_attributes")) {
            promotesHost |= a.asText().equals("host");
        }
        if (!otlp.path("promote_all_resource_attributes").asBoolean(false) && !promotesHost) {
            out.add(f + ": otlp.promote_resource_attributes lacks host: alerts on pushed series carry no host, so"
                    + " the kit's Alertmanager groups every host's alerts as one (docs/fleet.md, \"Prometheus' own"
                    + " OTLP receiver\")");
        }
    }

    private static void collector(Path f, JsonNode root, List<String> out) {
        root.path("exporters").fields().forEachRemaining(e -> {
            if (!e.getKey().startsWith("prometheusremotewrite") && !e.getKey().startsWith("prometheus")) {
                return;
            }
            JsonNode x = e.getValue();
            if (!x.path("add_metric_suffixes").asBoolean(true)) {
                out.add(f + ": exporters." + e.getKey() + ".add_metric_suffixes false: the dashboards and rules query"
                        + " the unit and _total suffixes");
            }
            if (!x.path("resource_to_telemetry_conversion").path("enabled").asBoolean(false)) {
                out.add(f + ": exporters." + e.getKey() + ".resource_to_telemetry_conversion is off: host and"
                        + " host_name do not reach the series, so alerts on them do not group per host");
            }
        });
    }
}
