package io.tailwatch.daemon.alerts;

import io.tailwatch.core.config.AlertsConfig;
import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.core.logging.Redact;
import io.tailwatch.core.rules.AlertState;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the agent's alerts to Alertmanagers as Prometheus does: after an evaluation in which an alert
 * fired or resolved, and otherwise every {@code resend_delay}, one POST of every firing alert (its
 * {@code endsAt} four resend delays or evaluation intervals ahead, so Alertmanager resolves it by
 * itself should the agent vanish) and every alert resolved within the retention (its {@code endsAt} the
 * resolution) to {@code /api/v2/alerts} of each Alertmanager. A failed POST is not retried on its own: the
 * next evaluation sends the whole state again. Each alert carries {@code alertname}, {@code severity},
 * its rule's labels and the agent's identity labels ({@code job}, {@code instance}, {@code host} and
 * {@code alerts.labels}), so the routes that match what Prometheus sends match these too.
 * Evaluation never waits: it hands the newest batch to each Alertmanager's own worker thread, whose one
 * slot holds at most one batch (a newer batch replaces one still waiting), so an Alertmanager that hangs
 * for its whole {@code alertmanager_timeout} delays none of the others. The config refuses a timeout that
 * is not shorter than the alerts' validity, so even a batch that waited out one hung POST arrives with its
 * {@code endsAt} ahead.
 */
public final class AlertmanagerSink implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AlertmanagerSink.class);
    /** The rule engine keeps at most 200 resolved alerts; firing ones are bounded by rules x label sets. */
    static final int MAX_ALERTS_PER_POST = 1000;

    private final List<Target> targets = new ArrayList<>();
    private final Duration timeout;
    private final Duration resendDelay;
    private final Duration validFor;
    private final Map<String, String> identity;
    private final String generatorUrl;
    private final Clock clock;
    private final Object lock = new Object();
    private Set<String> lastKeys = Set.of();
    private Instant lastHandedOver;
    private boolean resendNow;
    private volatile boolean closed;

    /** One Alertmanager, its worker and one-batch slot, and what happened to the POSTs sent to it. */
    private static final class Target {
        final URI url;
        Thread worker;
        /** The batch waiting for this worker (guarded by the sink's lock); a newer one replaces it. */
        byte[] waiting;
        volatile HttpExchange inFlight;
        long sent;
        long failed;
        String lastError;
        boolean failing;

        Target(URI url) {
            this.url = url;
        }
    }

    /**
     * @param evaluationInterval how often {@link #update} is called (the host interval)
     * @param identity the labels added to every alert ({@code job}, {@code instance}, ...)
     */
    public AlertmanagerSink(AlertsConfig.Alertmanagers config, Duration evaluationInterval, Map<String, String> identity,
                            String externalUrl, Clock clock) {
        for (URI u : config.urls()) {
            targets.add(new Target(u));
        }
        this.timeout = config.timeout();
        this.resendDelay = config.resendDelay();
        Duration longer = resendDelay.compareTo(evaluationInterval) >= 0 ? resendDelay : evaluationInterval;
        this.validFor = longer.multipliedBy(AlertsConfig.ALERT_VALIDITY_RESEND_DELAYS);
        this.identity = Map.copyOf(identity);
        this.generatorUrl = externalUrl + "/api/v1/alerts";
        this.clock = clock;
        for (int i = 0; i < targets.size(); i++) {
            Target t = targets.get(i);
            t.worker = new Thread(() -> run(t), "tailwatch-alertmanager-" + i);
            t.worker.setDaemon(true);
            t.worker.start();
        }
    }

    /** The labels one alert is sent with. */
    static Map<String, String> labels(Alert a, Map<String, String> identity) {
        Map<String, String> labels = new TreeMap<>(identity);
        labels.putAll(a.labels());
        labels.put("alertname", a.name());
        labels.put("severity", a.severity().label());
        return labels;
    }

    /** The API v2 body ({@code postableAlerts}) for the alerts that are firing or resolved from firing. */
    List<Map<String, Object>> batch(List<Alert> alerts, Instant now) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Alert a : alerts) {
            boolean firing = a.state() == AlertState.FIRING;
            boolean resolved = a.state() == AlertState.RESOLVED && a.firedAt() != null && a.resolvedAt() != null;
            if (!(firing || resolved) || out.size() >= MAX_ALERTS_PER_POST) {
                continue;
            }
            Map<String, String> annotations = new LinkedHashMap<>();
            put(annotations, "summary", a.summary());
            put(annotations, "description", a.description());
            put(annotations, "runbook_url", a.runbook());
            put(annotations, "value", a.valueText());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("labels", labels(a, identity));
            m.put("annotations", annotations);
            m.put("startsAt", String.valueOf(a.firedAt() != null ? a.firedAt() : a.activeAt()));
            m.put("endsAt", String.valueOf(firing ? now.plus(validFor) : a.resolvedAt()));
            m.put("generatorURL", generatorUrl);
            out.add(m);
        }
        return out;
    }

    private static void put(Map<String, String> m, String k, String v) {
        if (v != null && !v.isEmpty()) {
            m.put(k, v);
        }
    }

    /**
     * Called after every evaluation with the evaluator's alerts: sends when an alert fired or resolved
     * since the last POST, when the last POST failed, or when {@code resend_delay} has passed.
     */
    public void update(List<Alert> alerts) {
        Instant now = clock.instant();
        List<Map<String, Object>> batch = batch(alerts, now);
        Set<String> keys = new HashSet<>();
        for (Alert a : alerts) {
            if (a.state() == AlertState.FIRING || (a.state() == AlertState.RESOLVED && a.firedAt() != null)) {
                keys.add(a.fingerprint() + "/" + a.state().label());
            }
        }
        synchronized (lock) {
            boolean changed = !keys.equals(lastKeys);
            boolean due = lastHandedOver == null || !now.isBefore(lastHandedOver.plus(resendDelay));
            lastKeys = keys;
            if (batch.isEmpty() || !(changed || due || resendNow)) {
                return;
            }
            resendNow = false;
            lastHandedOver = now;
            byte[] body = Json.write(batch).getBytes(StandardCharsets.UTF_8);
            for (Target t : targets) {
                t.waiting = body;
            }
            lock.notifyAll();
        }
    }

    /** One Alertmanager's worker: posts the newest batch handed to it, one at a time. */
    private void run(Target t) {
        while (!closed) {
            byte[] body;
            synchronized (lock) {
                while (t.waiting == null && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                body = t.waiting;
                t.waiting = null;
            }
            if (body == null || closed) {
                return;
            }
            post(t, body);
        }
    }

    private void post(Target t, byte[] body) {
        String problem;
        try {
            HttpTransport.Request req = HttpTransport.Request.postJson(t.url, body, "application/json", null);
            long deadline = System.nanoTime() + timeout.toNanos();
            try (HttpExchange x = req.prepare()) {
                t.inFlight = x;
                if (closed) {
                    return;
                }
                req.start(x, timeout, deadline);
                int status = x.status();
                if (status / 100 == 2) {
                    succeeded(t);
                    return;
                }
                problem = "HTTP " + status + ": " + HttpTransport.clip(HttpTransport.errorBody(x, deadline).strip());
            } finally {
                t.inFlight = null;
            }
        } catch (Exception e) {
            if (closed) {
                return;
            }
            problem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        }
        failed(t, problem);
    }

    private void succeeded(Target t) {
        boolean recovered;
        synchronized (t) {
            t.sent++;
            recovered = t.failing;
            t.failing = false;
        }
        if (recovered) {
            LOG.info("event=alertmanager_recovered url={}", Redact.url(t.url));
        }
    }

    private void failed(Target t, String problem) {
        boolean first;
        synchronized (t) {
            t.failed++;
            t.lastError = problem;
            first = !t.failing;
            t.failing = true;
        }
        synchronized (lock) {
            resendNow = true; // the whole state goes again after the next evaluation
        }
        // One line when it starts failing; the count and the last error are in /api/v1/status.
        if (first) {
            LOG.warn("event=alertmanager_failed url={} error=\"{}\" (sent again after each evaluation until it answers)",
                    Redact.url(t.url), LogGuard.value(problem.replace("\"", "'")));
        }
    }

    /** Per Alertmanager: URL, POSTs sent and failed, the last error. */
    public List<Map<String, Object>> stats() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Target t : targets) {
            Map<String, Object> m = new LinkedHashMap<>();
            synchronized (t) {
                m.put("url", Redact.url(t.url));
                m.put("sent", t.sent);
                m.put("failed", t.failed);
                m.put("failing", t.failing);
                if (t.lastError != null) {
                    m.put("last_error", t.lastError);
                }
            }
            out.add(m);
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            lock.notifyAll();
        }
        for (Target t : targets) {
            HttpExchange x = t.inFlight;
            if (x != null) {
                x.close();
            }
            t.worker.interrupt();
        }
        for (Target t : targets) {
            try {
                t.worker.join(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
