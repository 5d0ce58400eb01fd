package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.HostPort;
import io.tailwatch.core.host.platform.ResourceInfo;
import io.tailwatch.daemon.alerts.AlertmanagerSink;
import io.tailwatch.daemon.alerts.Transition;
import io.tailwatch.daemon.alerts.WebhookSink;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where the alerts go: the webhook (every transition) and Alertmanager's v2 API (every firing alert re-sent,
 * resolved ones once), with the labels each alert is sent with. A reload replaces a sink whose settings,
 * the agent's external URL or its identity changed; the rule evaluator's listener stays this object.
 */
final class AlertDelivery implements Consumer<Transition> {
    private final Clock clock;
    private volatile WebhookSink webhook;
    private volatile AlertmanagerSink alertmanagers;
    private String externalUrl;

    AlertDelivery(Clock clock) {
        this.clock = clock;
    }

    /** Starts the sinks {@code c} enables, for an agent listening on {@code port} ({@code tls}: HTTPS). */
    void start(Config c, int port, boolean tls) {
        startWebhook(c, port, tls);
        startAlertmanagers(c, port);
    }

    private void startWebhook(Config c, int port, boolean tls) {
        externalUrl = externalUrl(c, port, tls);
        if (c.alerts().webhook().enabled()) {
            webhook = new WebhookSink(c.alerts().webhook(), externalUrl, identity(c, port), clock);
        }
    }

    private void startAlertmanagers(Config c, int port) {
        if (c.alerts().alertmanagers().enabled()) {
            alertmanagers = new AlertmanagerSink(c.alerts().alertmanagers(), c.host().interval(), identity(c, port),
                    externalUrl, clock);
        }
    }

    private static String externalUrl(Config c, int port, boolean tls) {
        return (tls ? "https://" : "http://") + HostPort.format(c.server().host(), port);
    }

    /**
     * Restarts the sinks whose settings changed from {@code prev} to {@code next} (the webhook also when the
     * external URL changed, Alertmanager also when the webhook or the alerts' identity did), adding
     * "webhook" and "alertmanagers" to {@code restarted} for each.
     */
    void reload(Config prev, Config next, int port, boolean tls, List<String> restarted) {
        boolean webhookChanged = !next.alerts().webhook().equals(prev.alerts().webhook())
                || !externalUrl(next, port, tls).equals(externalUrl);
        if (webhookChanged) {
            WebhookSink old = webhook;
            webhook = null;
            if (old != null) {
                old.close();
            }
            startWebhook(next, port, tls);
            restarted.add("webhook");
        }
        if (webhookChanged || !next.alerts().alertmanagers().equals(prev.alerts().alertmanagers())
                || !identity(next, port).equals(identity(prev, port))) {
            AlertmanagerSink old = alertmanagers;
            alertmanagers = null;
            if (old != null) {
                old.close();
            }
            startAlertmanagers(next, port);
            restarted.add("alertmanagers");
        }
    }

    /** Every transition goes to the webhook in force (a reload may replace it, never the evaluator's listener). */
    @Override
    public void accept(Transition t) {
        WebhookSink w = webhook;
        if (w != null) {
            w.accept(t);
        }
    }

    /** The webhook in force, or null. */
    WebhookSink webhook() {
        return webhook;
    }

    /** The Alertmanager sink in force, or null. */
    AlertmanagerSink alertmanagers() {
        return alertmanagers;
    }

    /**
     * The labels every alert is sent with, as a scrape of this agent would label its series: {@code job}
     * "tailwatch" (the kit's scrape job), {@code instance} HOST:PORT and {@code host} HOST, where HOST is
     * the first of {@code server.allowed_hosts} (the name Prometheus scrapes it by), else the listen
     * address unless it is a wildcard, else the host name; {@code alerts.labels} adds to or replaces them.
     */
    static Map<String, String> identity(Config config, int port) {
        String host;
        List<String> allowed = config.server().allowedHosts();
        String listen = config.server().host();
        if (allowed != null && !allowed.isEmpty()) {
            host = allowed.get(0);
        } else if (listen != null && !listen.isBlank() && !listen.equals("0.0.0.0") && !listen.equals("::")
                && !listen.equals("[::]")) {
            host = listen;
        } else {
            host = ResourceInfo.hostName();
        }
        Map<String, String> m = new LinkedHashMap<>();
        m.put("job", "tailwatch");
        m.put("instance", HostPort.format(host, port));
        m.put("host", host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host);
        m.putAll(config.alerts().labels());
        return m;
    }
}
