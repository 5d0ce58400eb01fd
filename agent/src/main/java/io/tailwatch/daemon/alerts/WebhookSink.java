package io.tailwatch.daemon.alerts;

import io.tailwatch.core.config.AlertsConfig;
import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.core.rules.AlertState;
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
 * At shutdown ({@link #close(Duration)}) the worker keeps delivering what is queued, one attempt each,
 * until the grace period ends; what is left then (and a delivery cut short) is counted as dropped and
 * logged, one line per notification, so a lost "resolved" is visible.
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
    private final Map<String, String> identity;
    private final Clock clock;
    private final BlockingQueue<Transition> queue;
    private final Map<String, Instant> lastSent = new HashMap<>();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong suppressed = new AtomicLong();
    private final AtomicLong droppedAtShutdown = new AtomicLong();
    private final Thread worker;
    private volatile boolean closed;
    /** Set by close: no new notifications, deliver what is queued until {@link #drainDeadline}. */
    private volatile boolean draining;
    private volatile long drainDeadline = Long.MAX_VALUE;
    private volatile boolean idle;
    private volatile HttpExchange inFlight;
    private final java.util.concurrent.atomic.AtomicReference<Transition> current = new java.util.concurrent.atomic.AtomicReference<>();
    /** Default grace period for {@link #close()}. */
    public static final Duration SHUTDOWN_GRACE = Duration.ofMillis(1500);

    public WebhookSink(AlertsConfig.Webhook config, String externalUrl, Clock clock) {
        this(config, externalUrl, Map.of(), clock);
    }

    /** {@code identity}: labels added to every alert ({@code job}, {@code instance}, ...), as the Alertmanager sink adds them. */
    public WebhookSink(AlertsConfig.Webhook config, String externalUrl, Map<String, String> identity, Clock clock) {
        this(config, externalUrl, identity, clock, Duration.ofSeconds(1));
    }

    WebhookSink(AlertsConfig.Webhook config, String externalUrl, Clock clock, Duration backoffBase) {
        this(config, externalUrl, Map.of(), clock, backoffBase);
    }

    WebhookSink(AlertsConfig.Webhook config, String externalUrl, Map<String, String> identity, Clock clock,
                Duration backoffBase) {
        this.identity = Map.copyOf(identity);
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
        if (!t.notifiable() || closed || draining) {
            return;
        }
        String key = t.alert().fingerprint() + "/" + t.to().label();
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
                idle = true;
                t = draining ? queue.poll() : queue.poll(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                if (draining && !closed) {
                    continue;
                }
                return;
            } finally {
                idle = false;
            }
            if (t == null) {
                if (draining) {
                    return;
                }
                continue;
            }
            if (draining) {
                Thread.interrupted(); // a wake-up meant for the idle poll
            }
            current.set(t);
            boolean done = deliver(t);
            // Whoever takes it out of current (this worker, or close() when the worker is stuck) counts it.
            if (current.compareAndSet(t, null) && !done) {
                dropAtShutdown(t, "the grace period ended during delivery");
            }
        }
    }

    /** Delivers with retries; false when shutdown cut it short (neither sent nor failed). */
    private boolean deliver(Transition t) {
        String body = Json.write(payload(t, externalUrl, identity));
        Duration wait = backoffBase;
        for (int attempt = 1; attempt <= maxAttempts && !closed; attempt++) {
            String problem;
            boolean retryable = true;
            try {
                HttpTransport.Request req = HttpTransport.Request.postJson(url, body.getBytes(StandardCharsets.UTF_8),
                        "*/*", null);
                int status;
                long deadline = Math.min(System.nanoTime() + timeout.toNanos(), drainDeadline);
                if (deadline - System.nanoTime() <= 0) {
                    return false;
                }
                try (HttpExchange x = req.prepare()) {
                    inFlight = x;
                    if (closed) {
                        return false;
                    }
                    req.start(x, timeout, deadline);
                    status = x.status(); // the body is not needed: the connection closes with the exchange
                } finally {
                    inFlight = null;
                }
                if (status / 100 == 2) {
                    sent.incrementAndGet();
                    return true;
                }
                problem = "HTTP " + status;
                if (status / 100 == 4 && status != 429 && status != 408) {
                    retryable = false; // the receiver refuses it: retrying will not help
                }
            } catch (Exception e) {
                if (closed || (draining && System.nanoTime() - drainDeadline >= 0)) {
                    return false;
                }
                problem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            }
            if (!retryable || attempt >= maxAttempts || draining) {
                failed.incrementAndGet();
                LOG.warn("event=webhook_failed alertname={} status={} attempts={} error=\"{}\"",
                        LogGuard.value(t.alert().name()), t.to().label(), attempt, LogGuard.value(problem.replace("\"", "'")));
                return true;
            }
            try {
                Thread.sleep(wait.toMillis());
            } catch (InterruptedException e) {
                if (draining && !closed) {
                    attempt = maxAttempts - 1; // shutdown: one last attempt, within the grace period
                    continue;
                }
                Thread.currentThread().interrupt();
                return false;
            }
            wait = wait.multipliedBy(2).compareTo(Duration.ofSeconds(60)) > 0 ? Duration.ofSeconds(60) : wait.multipliedBy(2);
        }
        return false; // closed between attempts
    }

    /** The Alertmanager webhook body for one transition. */
    public static Map<String, Object> payload(Transition t, String externalUrl) {
        return payload(t, externalUrl, Map.of());
    }

    /** The Alertmanager webhook body for one transition, its labels with {@code identity} added. */
    public static Map<String, Object> payload(Transition t, String externalUrl, Map<String, String> identity) {
        Alert a = t.alert();
        String status = (t.to() == AlertState.RESOLVED ? AlertState.RESOLVED : AlertState.FIRING).label();
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("alertname", a.name());
        labels.put("severity", a.severity().label());
        labels.putAll(a.labels());
        identity.forEach(labels::putIfAbsent);
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
        alert.put("fingerprint", Fingerprint.of(labels));
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
        m.put("dropped_at_shutdown", droppedAtShutdown.get());
        return m;
    }

    /** Notifications lost to a full queue or to shutdown. */
    public long dropped() {
        return dropped.get();
    }

    @Override
    public void close() {
        close(SHUTDOWN_GRACE);
    }

    /**
     * Stops taking notifications, delivers what is queued within {@code grace} (one attempt each), then
     * counts and logs what is left. Returns within about {@code grace} plus 100 ms.
     */
    public void close(Duration grace) {
        if (closed || draining) {
            return;
        }
        long start = System.nanoTime();
        drainDeadline = start + grace.toNanos();
        draining = true;
        if (idle) {
            worker.interrupt();
        }
        int queuedAtStart = queue.size();
        try {
            worker.join(Math.max(1, grace.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closed = true;
        HttpExchange x = inFlight;
        if (x != null) {
            x.close(); // aborts a delivery stuck on a receiver that does not answer
        }
        worker.interrupt();
        try {
            worker.join(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Transition cut = worker.isAlive() ? current.getAndSet(null) : null;
        if (cut != null) {
            dropAtShutdown(cut, "the grace period ended during delivery");
        }
        List<Transition> left = new ArrayList<>();
        queue.drainTo(left);
        for (Transition t : left) {
            dropAtShutdown(t, "the grace period ended before delivery");
        }
        long lost = droppedAtShutdown.get();
        if (queuedAtStart > 0 || lost > 0) {
            LOG.info("event=webhook_shutdown queued={} dropped={} grace_ms={}", queuedAtStart, lost, grace.toMillis());
        }
    }

    private void dropAtShutdown(Transition t, String why) {
        dropped.incrementAndGet();
        droppedAtShutdown.incrementAndGet();
        LOG.warn("event=webhook_dropped reason=shutdown alertname={} status={} fingerprint={} detail=\"{}\"",
                LogGuard.value(t.alert().name()), t.to().label(), t.alert().fingerprint(), why);
    }
}
