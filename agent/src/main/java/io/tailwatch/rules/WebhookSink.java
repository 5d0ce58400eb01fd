package io.tailwatch.rules;

import io.tailwatch.config.AlertsConfig;
import io.tailwatch.daemon.Json;
import io.tailwatch.probe.HttpExchange;
import io.tailwatch.probe.HttpTransport;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends alert transitions (to firing, firing to resolved) to a webhook in the Alertmanager webhook
 * format (version 4), one alert per POST. The evaluator only offers to a bounded queue (the oldest
 * notification is dropped when it is full); one worker thread posts with a deadline and retries with
 * exponential backoff. The same alert in the same state is sent at most once per cooldown.
 */
public final class WebhookSink implements Consumer<Transition>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookSink.class);
    private static final String NEVER = "0001-01-01T00:00:00Z";
    static final int MAX_COOLDOWN_KEYS = 10_000;

    private final URI url;
    private final Duration timeout;
    private final Duration cooldown;
    private final int maxAttempts;
    private final Duration backoffBase;
    private final String externalUrl;
    private final Clock clock;
    private final BlockingQueue<Transition> queue;
    private final Map<String, Instant> lastSent = new HashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();
    private final Thread worker;
    private volatile boolean closed;

    public WebhookSink(AlertsConfig.Webhook config, String externalUrl, Clock clock) {
        this(config, externalUrl, clock, Duration.ofSeconds(1));
    }

    WebhookSink(AlertsConfig.Webhook config, String externalUrl, Clock clock, Duration backoffBase) {
        this.url = config.url();
        this.timeout = config.timeout();
        this.cooldown = config.cooldown();
        this.maxAttempts = config.maxAttempts();
        this.backoffBase = backoffBase;
        this.externalUrl = externalUrl;
        this.clock = clock;
        this.queue = new ArrayBlockingQueue<>(config.queueSize());
        this.worker = new Thread(this::run, "tailwatch-webhook");
        worker.setDaemon(true);
        worker.start();
    }

    /** Never blocks: a notification that does not fit pushes the oldest one out. */
    @Override
    public void accept(Transition t) {
        if (!t.notifiable() || closed) {
            return;
        }
        String key = t.alert().fingerprint() + "/" + t.to();
        Instant now = clock.instant();
        synchronized (lastSent) {
            Instant last = lastSent.get(key);
            if (last != null && Duration.between(last, now).compareTo(cooldown) < 0) {
                suppressed.incrementAndGet();
                return;
            }
            if (lastSent.size() >= MAX_COOLDOWN_KEYS) {
                lastSent.entrySet().removeIf(e -> Duration.between(e.getValue(), now).compareTo(cooldown) >= 0);
                if (lastSent.size() >= MAX_COOLDOWN_KEYS) {
                    lastSent.clear();
                }
            }
            lastSent.put(key, now);
        }
        while (!queue.offer(t)) {
            if (queue.poll() != null) {
                dropped.incrementAndGet();
            }
        }
    }

    private void run() {
        while (!closed) {
            Transition t;
            try {
                t = queue.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (t != null) {
                deliver(t);
            }
        }
    }

    private void deliver(Transition t) {
        String body = Json.write(payload(t, externalUrl));
        Duration wait = backoffBase;
        for (int attempt = 1; attempt <= maxAttempts && !closed; attempt++) {
            String problem;
            try {
                HttpTransport.Request req = HttpTransport.Request.postJson(url, body.getBytes(StandardCharsets.UTF_8),
                        "*/*", null);
                int status;
                long deadline = System.nanoTime() + timeout.toNanos();
                try (HttpExchange x = req.send(timeout, deadline)) {
                    status = x.status(); // the body is not needed: the connection closes with the exchange
                }
                if (status / 100 == 2) {
                    sent.incrementAndGet();
                    return;
                }
                problem = "HTTP " + status;
                if (status / 100 == 4 && status != 429 && status != 408) {
                    attempt = maxAttempts; // the receiver refuses it: retrying will not help
                }
            } catch (Exception e) {
                problem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (attempt >= maxAttempts) {
                failed.incrementAndGet();
                LOG.warn("event=webhook_failed alertname={} status={} attempts={} error=\"{}\"", t.alert().name(),
                        t.to(), attempt, problem.replace("\"", "'"));
                return;
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            wait = wait.multipliedBy(2).compareTo(Duration.ofSeconds(60)) > 0 ? Duration.ofSeconds(60) : wait.multipliedBy(2);
        }
    }

    /** The Alertmanager webhook body for one transition. */
    public static Map<String, Object> payload(Transition t, String externalUrl) {
        Alert a = t.alert();
        String status = t.to().equals(Alert.RESOLVED) ? "resolved" : "firing";
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("alertname", a.name());
        labels.put("severity", a.severity());
        labels.putAll(a.labels());
        Map<String, String> annotations = new LinkedHashMap<>();
        annotations.put("summary", a.summary());
        annotations.put("description", a.description());
        annotations.put("runbook_url", a.runbook());
        annotations.put("value", a.valueText());
        Map<String, Object> alert = new LinkedHashMap<>();
        alert.put("status", status);
        alert.put("labels", labels);
        alert.put("annotations", annotations);
        alert.put("startsAt", String.valueOf(a.firedAt() != null ? a.firedAt() : a.activeAt()));
        alert.put("endsAt", a.resolvedAt() == null ? NEVER : a.resolvedAt().toString());
        alert.put("generatorURL", externalUrl + "/api/v1/alerts");
        alert.put("fingerprint", a.fingerprint());
        if (!a.evidence().isEmpty()) {
            alert.put("evidence", a.evidence());
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("version", "4");
        body.put("groupKey", "{}:{alertname=\"" + a.name() + "\"}");
        body.put("truncatedAlerts", 0);
        body.put("status", status);
        body.put("receiver", "tailwatch");
        body.put("groupLabels", Map.of("alertname", a.name()));
        body.put("commonLabels", labels);
        body.put("commonAnnotations", annotations);
        body.put("externalURL", externalUrl);
        body.put("alerts", new ArrayList<>(List.of(alert)));
        return body;
    }

    /** Counters for the status page. */
    public Map<String, Object> stats() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queued", queue.size());
        m.put("sent", sent.get());
        m.put("failed", failed.get());
        m.put("dropped", dropped.get());
        m.put("suppressed_by_cooldown", suppressed.get());
        return m;
    }

    @Override
    public void close() {
        closed = true;
        worker.interrupt();
    }
}
