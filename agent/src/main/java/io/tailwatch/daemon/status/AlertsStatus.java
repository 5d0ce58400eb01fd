package io.tailwatch.daemon.status;

import io.tailwatch.core.rules.AlertState;
import io.tailwatch.daemon.alerts.Alert;
import io.tailwatch.daemon.alerts.AlertmanagerSink;
import io.tailwatch.daemon.alerts.RuleEngine;
import io.tailwatch.daemon.alerts.WebhookSink;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** The "alerts" part of /api/v1/status: counts, the alerts (worst first), the figures behind them, webhook counters. */
public final class AlertsStatus implements StatusContributor {
    private final Supplier<RuleEngine> rules;
    private final Supplier<WebhookSink> webhook;
    private final Supplier<AlertmanagerSink> alertmanagers;

    public AlertsStatus(RuleEngine rules, Supplier<WebhookSink> webhook) {
        this(() -> rules, webhook, () -> null);
    }

    /** With the evaluator in force at each call (a reload replaces it). */
    public AlertsStatus(Supplier<RuleEngine> rules, Supplier<WebhookSink> webhook, Supplier<AlertmanagerSink> alertmanagers) {
        this.rules = rules;
        this.webhook = webhook;
        this.alertmanagers = alertmanagers;
    }

    @Override
    public String name() {
        return "alerts";
    }

    @Override
    public Object status() {
        RuleEngine rules = this.rules.get();
        Map<String, Object> m = new LinkedHashMap<>();
        long firing = rules.alerts().stream().filter(a -> a.state() == AlertState.FIRING).count();
        long pending = rules.alerts().stream().filter(a -> a.state() == AlertState.PENDING).count();
        m.put(AlertState.FIRING.label(), firing);
        m.put(AlertState.PENDING.label(), pending);
        m.put("rules", rules.enabledRules());
        m.put("alerts", rules.alerts());
        m.put("signals", rules.signals());
        WebhookSink w = webhook.get();
        if (w != null) {
            m.put("webhook", w.stats());
        }
        AlertmanagerSink am = alertmanagers.get();
        if (am != null) {
            m.put("alertmanagers", am.stats());
        }
        return m;
    }
}
