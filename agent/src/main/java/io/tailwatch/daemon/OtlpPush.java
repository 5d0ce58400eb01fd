package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.OtlpExporter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OTLP push, when the config or the {@code OTEL_*} environment turns it on: an exporter that is a sink of
 * the hub, with the agent's resource attributes and the host its alerts are labelled with.
 */
final class OtlpPush {
    private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

    private final MetricHub hub;
    private final Map<String, String> env;
    private OtlpExporter otlp;

    OtlpPush(MetricHub hub, Map<String, String> env) {
        this.hub = hub;
        this.env = env;
    }

    /** Starts the push {@code c} asks for (none: nothing), with {@code resource}'s attributes. */
    void start(Config c, Map<String, String> resource) {
        if (OtlpExporter.enabled(c.otlp().settings(), env)) {
            // host: the machine as the agent's own alerts and the kit's scrape relabel name it, so alerts that a
            // Prometheus evaluates on pushed series group and route per host as on scraped ones (an
            // OTEL_RESOURCE_ATTRIBUTES host wins). Only on the push: a scrape gets host from its target.
            Map<String, String> pushed = new LinkedHashMap<>(resource);
            pushed.putIfAbsent("host", AlertDelivery.identity(c, 0).get("host"));
            otlp = OtlpExporter.start(c.otlp().settings(), hub, pushed);
            hub.addSink(otlp);
            LOG.info("OTLP export on: {}", withoutCredentials(otlp.endpoint()));
        }
    }

    /** Stops the push in force, if any, and takes it off the hub (a reload then starts the new one). */
    void stop() {
        if (otlp != null) {
            hub.removeSink(otlp);
            otlp.close();
            otlp = null;
        }
    }

    /** Closes the push in force at shutdown (its final flush). */
    void close() {
        if (otlp != null) {
            otlp.close();
        }
    }

    /** An endpoint URL for the log: user info, query and fragment removed (they may carry secrets). */
    static String withoutCredentials(String url) {
        try {
            java.net.URI u = java.net.URI.create(url);
            if (u.getScheme() == null || u.getHost() == null) {
                return url.replaceAll("[?#].*$", "");
            }
            return new java.net.URI(u.getScheme(), null, u.getHost(), u.getPort(), u.getPath(), null, null).toString();
        } catch (IllegalArgumentException | java.net.URISyntaxException e) {
            return "(unparseable endpoint)";
        }
    }
}
