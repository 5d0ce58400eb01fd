package io.tailwatch.core.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code alerts:} section: how long resolved alerts stay listed, the optional webhook sink
 * (Alertmanager webhook format) and where the single-request baselines are persisted.
 */
public record AlertsConfig(Duration resolvedRetention, Webhook webhook, Path baselineFile, int baselineMinSamples,
                           String runbookBaseUrl) {

    public AlertsConfig(Duration resolvedRetention, Webhook webhook, Path baselineFile, int baselineMinSamples) {
        this(resolvedRetention, webhook, baselineFile, baselineMinSamples, null);
    }

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
        Section b = s.section("baseline");
        Path file = b.path("file", "");
        Path baselineFile = file == null ? defaultDataDir(s.env()).resolve("baselines.json") : file;
        int minSamples = b.integer("min_samples", 20, 1, 100_000);
        b.finish();
        s.finish();
        return new AlertsConfig(retention, new Webhook(uri, timeout, cooldown, queue, attempts), baselineFile, minSamples,
                runbookBase);
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

    /**
     * Where the agent keeps its small state files: ~/Library/Application Support/tailwatch on macOS,
     * $XDG_DATA_HOME/tailwatch or ~/.local/share/tailwatch elsewhere.
     */
    public static Path defaultDataDir(Map<String, String> env) {
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (os.contains("mac")) {
            return Path.of(home, "Library", "Application Support", "tailwatch");
        }
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
            return Path.of(xdg, "tailwatch");
        }
        return Path.of(home, ".local", "share", "tailwatch");
    }
}
