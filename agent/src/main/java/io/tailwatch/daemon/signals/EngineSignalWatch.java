package io.tailwatch.daemon.signals;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.EngineProcesses;
import io.tailwatch.core.host.EngineRunners;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The signals of one engine: detection, one read of every source per interval (each under the
 * deadline; one failing source loses only its own figures), and publication to the hub as producer
 * {@code signals/NAME}. Nothing is published for figures the engine does not expose.
 */
public final class EngineSignalWatch {
    private static final Logger LOG = LoggerFactory.getLogger(EngineSignalWatch.class);
    /** With only the estimate in use, the engine is asked again this often (it may gain /metrics). */
    static final Duration REDETECT_WHEN_ESTIMATING = Duration.ofMinutes(10);
    /** After this many reads in a row in which every source failed, detection runs again. */
    static final int REDETECT_AFTER_FAILED_READS = 3;
    /** Bound on the error classes counted per source (http_<status> could otherwise vary). */
    static final int MAX_ERROR_TYPES = 16;

    private final EngineConfig config;
    private final EngineEndpoint endpoint;
    private final MetricHub hub;
    /** Held while publishing, so a retired engine's series cannot come back. */
    private final Object published = new Object();
    private volatile boolean retired;
    private final Clock clock;
    private final HeaderTimeEstimate estimate;
    private final Duration deadline;
    /** Guards failures, state and publication; held only briefly (never across a read). */
    private final Object out = new Object();
    private final Map<String, Map<String, Long>> failures = new TreeMap<>();
    private volatile SignalDetector.Detection detection;
    private Instant detectedAt;
    private int failedReads;
    private volatile State state = new State(null, null, null, EngineSignals.EMPTY, null, Map.of());

    /** What the status API shows; replaced whole after every read. */
    public record State(SignalDetector.Detection detection, Instant detectedAt, Instant readAt, EngineSignals signals,
                        LastFailure lastFailure, Map<String, Map<String, Long>> failures) {
    }

    public record LastFailure(String source, String errorType, String message, Instant at) {
    }

    public EngineSignalWatch(EngineConfig config, MetricHub hub, Clock clock) {
        this.config = config;
        this.endpoint = new EngineEndpoint(config.url(), config.apiKey(), config.connectTimeout());
        this.hub = hub;
        this.clock = clock;
        Duration longest = Duration.ofMinutes(1);
        for (EngineConfig.Scenario s : config.scenarios()) {
            if (s.interval().compareTo(longest) > 0) {
                longest = s.interval();
            }
        }
        this.estimate = new HeaderTimeEstimate(longest.multipliedBy(3), clock);
        Duration half = config.signals().interval().dividedBy(2);
        this.deadline = config.healthTimeout().compareTo(half) < 0 ? config.healthTimeout() : half;
    }

    public EngineConfig config() {
        return config;
    }

    public State state() {
        return state;
    }

    public HeaderTimeEstimate estimate() {
        return estimate;
    }

    /** Failures counted so far, per source kind and error class. */
    public Map<String, Map<String, Long>> failureCounts() {
        return state.failures();
    }

    /** Detects when due, reads every source once and publishes. Only one read of an engine runs at a time. */
    public synchronized State poll() {
        Instant now = clock.instant();
        if (redetectDue(now)) {
            SignalDetector.Detection d = OllamaRunnerSlotsSource.applies(config)
                    ? OllamaRunnerSlotsSource.detection(config, estimate)
                    : SignalDetector.detect(endpoint, config.signals(), estimate, deadline);
            if (detection == null || !d.note().equals(detection.note())) {
                LOG.info("engine {}: signals: {}", config.name(), io.tailwatch.core.logging.LogGuard.value(d.note()));
            }
            if (d.families().contains("vllm_mlx") && EngineProcesses.local(config)) {
                long self = ProcessHandle.current().pid();
                for (EngineSignalSource src : d.sources()) {
                    if (src instanceof VllmMlxStatusSource v) {
                        // vllm-mlx publishes no batch size: its own command line tells it
                        v.serverArgs(() -> EngineRunners.serverArguments(HostSources.processTable().get(), config, self));
                    }
                }
            }
            detection = d;
            detectedAt = now;
            failedReads = 0;
        }
        EngineSignals merged = EngineSignals.EMPTY;
        List<LastFailure> failed = new ArrayList<>();
        for (EngineSignalSource s : detection.sources()) {
            try {
                merged = merged.orElse(s.read(deadline));
            } catch (SignalFailure f) {
                failed.add(new LastFailure(s.kind(), f.errorType(), f.getMessage(), clock.instant()));
                LOG.debug("engine {}: signal source {} failed: {} {}", config.name(), s.kind(), f.errorType(),
                        f.getMessage());
            } catch (RuntimeException e) {
                failed.add(new LastFailure(s.kind(), ProbeErrors.OTHER, e.toString(), clock.instant()));
                LOG.debug("engine {}: signal source {} failed", config.name(), s.kind(), e);
            }
        }
        failedReads = !detection.sources().isEmpty() && failed.size() == detection.sources().size() ? failedReads + 1 : 0;
        merged = proxyCounts(merged);
        synchronized (out) {
            LastFailure last = state.lastFailure();
            for (LastFailure f : failed) {
                count(f.source(), f.errorType());
                last = f;
            }
            state = new State(detection, detectedAt, clock.instant(), merged, last, copyFailures());
            publish();
            return state;
        }
    }

    private boolean redetectDue(Instant now) {
        if (detection == null || !detection.decided()) {
            return true;
        }
        if (config.signals().source() != io.tailwatch.core.config.SignalSourceSetting.AUTO) {
            return false;
        }
        if (failedReads >= REDETECT_AFTER_FAILED_READS) {
            return true;
        }
        return detection.onlyEstimate() && Duration.between(detectedAt, now).compareTo(REDETECT_WHEN_ESTIMATING) >= 0;
    }

    /** One probe result from the engine monitor; updates the estimate when it is the source in use. */
    public void onProbe(ProbeResult r) {
        onProbe(r, false);
    }

    /** As {@link #onProbe(ProbeResult)}; {@code headersAtAdmission}: see {@link HeaderTimeEstimate#onProbe(ProbeResult, boolean)}. */
    public void onProbe(ProbeResult r, boolean headersAtAdmission) {
        estimate.onProbe(r, headersAtAdmission);
        SignalDetector.Detection d = detection;
        if (d != null && d.onlyEstimate()) {
            synchronized (out) {
                State s = state;
                state = new State(s.detection(), s.detectedAt(), clock.instant(), proxyCounts(estimate.read(deadline)),
                        s.lastFailure(), s.failures());
                publish();
            }
        }
    }

    /**
     * For an engine that counts no running or waiting requests of its own but whose batch size is known (LM
     * Studio's loaded instances, vllm-mlx's command line, or {@code signals.batch_size}): the proxy's requests in flight to it, up to the
     * batch size, run; the rest wait. Measured from the proxy (only its traffic), and said so; without a proxy in
     * front, or without a batch size, the counts stay unknown.
     */
    EngineSignals proxyCounts(EngineSignals s) {
        if (s.running() != null || s.waiting() != null) {
            return s;
        }
        Object fromEngine = s.details().get(LmStudioModelsSource.BATCH_SIZE);
        Double batch = fromEngine instanceof Double d ? d
                : config.signals().batchSize() == null ? null : config.signals().batchSize().doubleValue();
        if (batch == null) {
            return s;
        }
        hub.refresh();
        Double inFlight = hub.snapshot().value(io.tailwatch.metrics.ProxyMetrics.IN_FLIGHT, AttrKeys.ENGINE, config.name());
        if (inFlight == null) {
            return s;
        }
        Map<String, Object> more = new LinkedHashMap<>();
        more.put("proxy_in_flight", inFlight);
        more.put(LmStudioModelsSource.BATCH_SIZE, batch);
        more.put("batch_size_from", !(fromEngine instanceof Double) ? "config"
                : VllmMlxStatusSource.COMMAND_LINE.equals(s.details().get(VllmMlxStatusSource.BATCH_SIZE_FROM))
                ? VllmMlxStatusSource.COMMAND_LINE : "engine");
        return s.withCounts(Math.min(inFlight, batch), Math.max(0, inFlight - batch), EngineSignals.FROM_PROXY, more);
    }

    private Map<String, Map<String, Long>> copyFailures() {
        Map<String, Map<String, Long>> copy = new TreeMap<>();
        failures.forEach((k, v) -> copy.put(k, java.util.Collections.unmodifiableMap(new TreeMap<>(v))));
        return java.util.Collections.unmodifiableMap(copy);
    }

    private void count(String kind, String errorType) {
        Map<String, Long> m = failures.computeIfAbsent(kind, k -> new TreeMap<>());
        String t = m.containsKey(errorType) || m.size() < MAX_ERROR_TYPES ? errorType : ProbeErrors.OTHER;
        m.merge(t, 1L, Long::sum);
    }

    /** Stops publishing and takes this engine's signal series out of the hub. */
    void retire() {
        synchronized (published) {
            retired = true;
            hub.publish("signals/" + config.name(), List.of());
        }
    }

    private void publish() {
        synchronized (published) {
            if (!retired) {
                hub.publish("signals/" + config.name(), points());
            }
        }
    }

    private List<Point> points() {
        String e = config.name();
        State s = state;
        List<Point> points = new ArrayList<>(s.signals().points(e));
        if (s.signals().details().get("slots_total") instanceof Number slots) {
            points.add(Point.of(EngineSideMetrics.SLOTS, slots.doubleValue(), AttrKeys.ENGINE, e));
        }
        if (s.detection() != null) {
            Map<String, Boolean> kinds = new LinkedHashMap<>();
            for (EngineSignalSource src : s.detection().sources()) {
                kinds.put(src.kind(), true);
            }
            for (String kind : kinds.keySet()) {
                points.add(Point.of(EngineSideMetrics.SIGNAL_SOURCE, 1, AttrKeys.ENGINE, e, AttrKeys.SIGNAL_SOURCE, kind));
            }
        }
        failures.forEach((kind, byType) -> byType.forEach((type, n) -> points.add(Point.of(
                EngineSideMetrics.SIGNAL_FAILURES, n, AttrKeys.ENGINE, e, AttrKeys.SIGNAL_SOURCE, kind, AttrKeys.ERROR_TYPE, type))));
        return points;
    }
}
