package io.tailwatch.core.config;

import io.tailwatch.core.units.Units;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code alerts:} section: how long resolved alerts stay listed, the optional webhook sink
 * (Alertmanager webhook format), the Alertmanagers to send alerts to (API v2), the labels added to
 * what is sent, and where the single-request baselines are persisted.
 */
public record AlertsConfig(Duration resolvedRetention, Webhook webhook, Path baselineFile, int baselineMinSamples,
                           String runbookBaseUrl, Alertmanagers alertmanagers, Map<String, String> labels) {

    public AlertsConfig(Duration resolvedRetention, Webhook webhook, Path baselineFile, int baselineMinSamples) {
        this(resolvedRetention, webhook, baselineFile, baselineMinSamples, null);
    }

    public AlertsConfig(Duration resolvedRetention, Webhook webhook, Path baselineFile, int baselineMinSamples,
                        String runbookBaseUrl) {
        this(resolvedRetention, webhook, baselineFile, baselineMinSamples, runbookBaseUrl,
                new Alertmanagers(List.of(), Duration.ofSeconds(10), Duration.ofMinutes(1)), Map.of());
    }

    /**
     * Alertmanagers the agent sends its alerts to as Prometheus does (API v2); {@code urls} are the
     * {@code /api/v2/alerts} endpoints, empty = off. Firing alerts are re-sent every {@code resendDelay}.
     */
    public record Alertmanagers(List<URI> urls, Duration timeout, Duration resendDelay) {
        public boolean enabled() {
            return !urls.isEmpty();
        }
    }

    /** At most this many Alertmanagers and extra labels. */
    static final int MAX_ALERTMANAGERS = 16;
    /** A firing alert is sent with its {@code endsAt} this many resend delays (or evaluation intervals) ahead. */
    public static final int ALERT_VALIDITY_RESEND_DELAYS = 4;
    static final int MAX_LABELS = 32;

    /** Webhook sink; {@code url} null = off. */
    public record Webhook(URI url, Duration timeout, Duration cooldown, int queueSize, int maxAttempts) {
        public boolean enabled() {
            return url != null;
        }
    }

    static AlertsConfig read(Section s) {
        Duration retention = s.duration("resolved_retention", Duration.ofMinutes(15), Duration.ZERO, Duration.ofDays(1));
        String runbookBase = runbookBase(s);
        Section w = s.section("webhook");
        String url = w.string("url", "");
        URI uri = null;
        if (url != null && !url.isBlank()) {
            try {
                uri = URI.create(url.strip());
                if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                        || uri.getHost() == null) {
                    w.problem("url", "expected an http:// or https:// URL, got '" + url + "'");
                    uri = null;
                }
            } catch (IllegalArgumentException e) {
                w.problem("url", "not a URL: " + e.getMessage());
            }
        }
        Duration timeout = w.duration("timeout", Duration.ofSeconds(5), Duration.ofMillis(50), Duration.ofMinutes(1));
        Duration cooldown = w.duration("cooldown", Duration.ofMinutes(5), Duration.ZERO, Duration.ofDays(1));
        int queue = w.integer("queue_size", 256, 1, 100_000);
        int attempts = w.integer("max_attempts", 5, 1, 20);
        w.finish();
        Alertmanagers alertmanagers = alertmanagers(s);
        Map<String, String> labels = labels(s);
        Section b = s.section("baseline");
        Path file = b.path("file", "");
        Path baselineFile = file == null ? DataDir.of(s.env()).resolve("baselines.json") : file;
        int minSamples = b.integer("min_samples", 20, 1, 100_000);
        b.finish();
        s.finish();
        return new AlertsConfig(retention, new Webhook(uri, timeout, cooldown, queue, attempts), baselineFile, minSamples,
                runbookBase, alertmanagers, labels);
    }

    /**
     * {@code alertmanagers: [URL, ...]}: each an Alertmanager's base URL ({@code http://HOST:9093}, with its
     * route prefix if it has one) or its {@code /api/v2/alerts} endpoint;
     * {@code alertmanager_timeout} and {@code alertmanager_resend_delay} apply to all.
     */
    private static Alertmanagers alertmanagers(Section s) {
        List<URI> urls = new ArrayList<>();
        List<String> raw = s.strings("alertmanagers", List.of());
        if (raw.size() > MAX_ALERTMANAGERS) {
            s.problem("alertmanagers", "at most " + MAX_ALERTMANAGERS + " Alertmanagers, got " + raw.size());
            raw = List.of();
        }
        for (int i = 0; i < raw.size(); i++) {
            String text = raw.get(i).strip();
            try {
                URI u = URI.create(text);
                if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
                        || u.getHost() == null || u.getRawQuery() != null || u.getRawFragment() != null) {
                    s.problem("alertmanagers", "[" + i + "]: expected an Alertmanager URL such as http://127.0.0.1:9093, got '"
                            + text + "'");
                    continue;
                }
                String path = u.getRawPath() == null ? "" : u.getRawPath().replaceAll("/+$", "");
                if (!path.endsWith("/api/v2/alerts")) {
                    if (path.endsWith("/api/v1/alerts")) {
                        s.problem("alertmanagers", "[" + i + "]: '" + text + "' is the v1 API, which Alertmanager 0.27 removed;"
                                + " give the base URL (the agent posts to /api/v2/alerts)");
                        continue;
                    }
                    path = path + "/api/v2/alerts";
                }
                URI endpoint = URI.create(u.getScheme() + "://" + u.getRawAuthority() + path);
                if (!urls.contains(endpoint)) {
                    urls.add(endpoint);
                }
            } catch (IllegalArgumentException e) {
                s.problem("alertmanagers", "[" + i + "]: not a URL: " + e.getMessage());
            }
        }
        Duration timeout = s.duration("alertmanager_timeout", Duration.ofSeconds(10), Duration.ofMillis(50), Duration.ofMinutes(1));
        Duration resend = s.duration("alertmanager_resend_delay", Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofHours(1));
        // A firing alert is sent valid for 4 x max(resend delay, evaluation interval), at least 4 resend delays:
        // a POST allowed to take longer could deliver it already expired, and Alertmanager would never show it firing.
        Duration validity = resend.multipliedBy(ALERT_VALIDITY_RESEND_DELAYS);
        if (timeout.compareTo(validity) >= 0) {
            s.problem("alertmanager_timeout", Units.format(timeout) + " must be shorter than the alerts' validity, "
                    + ALERT_VALIDITY_RESEND_DELAYS + " x alertmanager_resend_delay (" + Units.format(validity)
                    + "): a POST that slow would deliver alerts whose endsAt has passed");
        }
        return new Alertmanagers(List.copyOf(urls), timeout, resend);
    }

    /**
     * {@code labels}: added to every alert the agent sends (Alertmanager and webhook), over the defaults
     * {@code job}, {@code instance} and {@code host}; like Prometheus' external labels.
     */
    private static Map<String, String> labels(Section s) {
        Map<String, String> raw = s.stringMap("labels");
        Map<String, String> out = new LinkedHashMap<>();
        if (raw.size() > MAX_LABELS) {
            s.problem("labels", "at most " + MAX_LABELS + " labels, got " + raw.size());
            return Map.of();
        }
        for (Map.Entry<String, String> e : raw.entrySet()) {
            String k = e.getKey();
            if (!k.matches("[a-zA-Z_][a-zA-Z0-9_]{0,127}") || k.startsWith("__")) {
                s.problem("labels", "'" + k + "' is not a label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)");
            } else if (k.equals("alertname") || k.equals("severity")) {
                s.problem("labels", "'" + k + "' is set by each rule and cannot be overridden");
            } else if (e.getValue() == null || e.getValue().isEmpty() || e.getValue().length() > 1024) {
                s.problem("labels", k + ": a value of 1 to 1024 characters is needed");
            } else {
                out.put(k, e.getValue());
            }
        }
        return Map.copyOf(out);
    }

    /**
     * {@code runbook_base_url}: where docs/runbook.md is published (e.g. a repository's blob URL or an
     * internal wiki page). Empty = links stay the relative {@code docs/runbook.md#Rule}.
     */
    private static String runbookBase(Section s) {
        String base = s.string("runbook_base_url", "");
        if (base == null || base.isBlank()) {
            return null;
        }
        base = base.strip();
        try {
            URI u = URI.create(base);
            if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))
                    || u.getHost() == null) {
                s.problem("runbook_base_url", "expected an absolute http:// or https:// URL of the runbook page, got '"
                        + base + "'");
                return null;
            }
            if (u.getRawFragment() != null) {
                s.problem("runbook_base_url", "must not have a #fragment: each alert adds its own (#RuleName)");
                return null;
            }
        } catch (IllegalArgumentException e) {
            s.problem("runbook_base_url", "not a URL: " + e.getMessage());
            return null;
        }
        return base;
    }
}
