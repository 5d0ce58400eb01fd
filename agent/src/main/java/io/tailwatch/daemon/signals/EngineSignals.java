package io.tailwatch.daemon.signals;

import io.tailwatch.core.probe.InputRange;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.QueueWaitSource;
import io.tailwatch.metrics.AttrValues.RequestState;
import io.tailwatch.metrics.AttrValues.RequestsSource;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.Point;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One reading of an engine's own figures. Every figure is null when the source does not report it
 * (never 0 for unknown); {@code details} holds source-specific extras for the status API (slots,
 * counters, Metal memory, last error).
 *
 * @param running          requests being generated
 * @param waiting          requests queued, not yet started
 * @param kvCacheUsage     KV-cache use as a ratio of capacity (0..1)
 * @param queueWaitSeconds how long requests waited before starting
 * @param queueWaitSource  measured (the engine's own figure) or estimate (from probe header time)
 * @param requestsSource   what running and waiting are measured from: engine (its own count) or proxy (the
 *                         proxy's requests in flight against the engine's batch size)
 */
public record EngineSignals(Double running, Double waiting, Double kvCacheUsage, Double queueWaitSeconds,
                            String queueWaitSource, Map<String, Object> details, String requestsSource) {
    public static final String MEASURED = QueueWaitSource.MEASURED.value();
    public static final String ESTIMATE = QueueWaitSource.ESTIMATE.value();
    public static final String FROM_ENGINE = RequestsSource.ENGINE.value();
    public static final String FROM_PROXY = RequestsSource.PROXY.value();
    public static final EngineSignals EMPTY = new EngineSignals(null, null, null, null, null, Map.of());

    /** Figures whose running and waiting counts are the engine's own. */
    public EngineSignals(Double running, Double waiting, Double kvCacheUsage, Double queueWaitSeconds,
                         String queueWaitSource, Map<String, Object> details) {
        this(running, waiting, kvCacheUsage, queueWaitSeconds, queueWaitSource, details, FROM_ENGINE);
    }

    public EngineSignals {
        if (!FROM_ENGINE.equals(requestsSource) && !FROM_PROXY.equals(requestsSource)) {
            throw new IllegalArgumentException("requests source must be engine or proxy");
        }
        running = InputRange.number(SOURCE, "running", running, 0, InputRange.MAX_REQUESTS);
        waiting = InputRange.number(SOURCE, "waiting", waiting, 0, InputRange.MAX_REQUESTS);
        kvCacheUsage = InputRange.number(SOURCE, "kv_cache_usage", kvCacheUsage, 0, 1);
        queueWaitSeconds = InputRange.number(SOURCE, "queue_wait_seconds", queueWaitSeconds, 0, MAX_WAIT_SECONDS);
        if (queueWaitSeconds == null) {
            queueWaitSource = null;
        } else if (!MEASURED.equals(queueWaitSource) && !ESTIMATE.equals(queueWaitSource)) {
            throw new IllegalArgumentException("queue wait source must be measured or estimate");
        }
        details = Collections.unmodifiableMap(InputRange.details(SOURCE, "details", details));
    }

    /** Where the engines' own figures enter, for {@link InputRange}. */
    private static final String SOURCE = "engine_signals";
    /** The longest queue wait taken as a figure: one day. */
    private static final double MAX_WAIT_SECONDS = 86_400;

    public boolean isEmpty() {
        return running == null && waiting == null && kvCacheUsage == null && queueWaitSeconds == null;
    }

    /** Fills the figures this reading lacks from {@code other}; details are merged, this one's first. */
    public EngineSignals orElse(EngineSignals other) {
        Map<String, Object> d = new LinkedHashMap<>(other.details);
        d.putAll(details);
        boolean ownWait = queueWaitSeconds != null;
        boolean ownCounts = running != null || waiting != null;
        return new EngineSignals(running != null ? running : other.running,
                waiting != null ? waiting : other.waiting,
                kvCacheUsage != null ? kvCacheUsage : other.kvCacheUsage,
                ownWait ? queueWaitSeconds : other.queueWaitSeconds,
                ownWait ? queueWaitSource : other.queueWaitSource, d,
                ownCounts || (other.running == null && other.waiting == null) ? requestsSource : other.requestsSource);
    }

    /** These figures with running and waiting replaced, measured from {@code source}; details added. */
    public EngineSignals withCounts(Double running, Double waiting, String source, Map<String, Object> more) {
        Map<String, Object> d = new LinkedHashMap<>(details);
        d.putAll(more);
        return new EngineSignals(running, waiting, kvCacheUsage, queueWaitSeconds, queueWaitSource, d, source);
    }

    /** The hub series of this reading for {@code engine}; figures that are unknown have no series. */
    public List<Point> points(String engine) {
        List<Point> out = new ArrayList<>(4);
        if (running != null) {
            out.add(Point.of(EngineSideMetrics.REQUESTS, running, RequestState.RUNNING, AttrKeys.ENGINE, engine,
                    AttrKeys.REQUESTS_SOURCE, requestsSource));
        }
        if (waiting != null) {
            out.add(Point.of(EngineSideMetrics.REQUESTS, waiting, RequestState.WAITING, AttrKeys.ENGINE, engine,
                    AttrKeys.REQUESTS_SOURCE, requestsSource));
        }
        if (kvCacheUsage != null) {
            out.add(Point.of(EngineSideMetrics.KV_CACHE_USAGE, kvCacheUsage, AttrKeys.ENGINE, engine));
        }
        if (queueWaitSeconds != null) {
            out.add(Point.of(EngineSideMetrics.QUEUE_WAIT, queueWaitSeconds, AttrKeys.ENGINE, engine, AttrKeys.QUEUE_WAIT_SOURCE, queueWaitSource));
        }
        return out;
    }
}
