package io.tailwatch.core.rules;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import io.tailwatch.metrics.AlertMetrics;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.PagingState;
import io.tailwatch.metrics.AttrValues.Percentile;
import io.tailwatch.metrics.AttrValues.QueueWaitSource;
import io.tailwatch.metrics.AttrValues.RequestState;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.EngineSideMetrics;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricSnapshot;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProbeMetrics;
import io.tailwatch.metrics.ProxyMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The figures the rules, {@code tailwatch status} and {@code tailwatch diagnose} look at, taken
 * from one snapshot. Unknown figures are null (left out of the JSON), never 0.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Signals(Host host, List<Engine> engines, List<Window> windows, List<Lane> lanes) {

    /** Without lanes (no engine has a metering proxy, or a reader that predates them). */
    public Signals(Host host, List<Engine> engines, List<Window> windows) {
        this(host, engines, windows, List.of());
    }

    /**
     * One lane of an engine's metering proxy over the lane window (docs/proxy.md): requests, goodput and
     * the p95s, the SLO's limits and target, and the lane's mean requests in flight. Null where unknown.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Lane(String engine, String lane, Double requests, Double goodput, Double target, Double ttftP95,
                       Double ttftSlo, Double e2eP95, Double e2eSlo, Double queueWaitP95, Double inFlight) {
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Host(Double swapUsedBytes, Double swapChange10mBytes, Double memoryPressureLevel,
                       Double memoryAvailableBytes, Double memoryTotalBytes, Double thermalPressureLevel,
                       Double cpuSpeedLimit, Double gpuMemoryLimitBytes, Double gpuMemoryInUseBytes) {
        /** Without the GPU's figures (a host that has none, or a reader that predates them). */
        public Host(Double swapUsedBytes, Double swapChange10mBytes, Double memoryPressureLevel, Double memoryAvailableBytes,
                    Double memoryTotalBytes, Double thermalPressureLevel, Double cpuSpeedLimit) {
            this(swapUsedBytes, swapChange10mBytes, memoryPressureLevel, memoryAvailableBytes, memoryTotalBytes,
                    thermalPressureLevel, cpuSpeedLimit, null, null);
        }
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Engine(String engine, Double up, Double loading, Double footprintBytes, Double rssBytes, List<Model> models,
                         Queue queue, Double reached, Double keyRefused, Double gpuUtilization) {
        /** Without the GPU share (unknown: not a Mac, or not read yet). */
        public Engine(String engine, Double up, Double loading, Double footprintBytes, Double rssBytes, List<Model> models,
                      Queue queue, Double reached, Double keyRefused) {
            this(engine, up, loading, footprintBytes, rssBytes, models, queue, reached, keyRefused, null);
        }

        /** Without the reached figure (unknown). */
        public Engine(String engine, Double up, Double loading, Double footprintBytes, Double rssBytes, List<Model> models,
                      Queue queue) {
            this(engine, up, loading, footprintBytes, rssBytes, models, queue, null, null);
        }

        /** Without the key-refused figure (unknown). */
        public Engine(String engine, Double up, Double loading, Double footprintBytes, Double rssBytes, List<Model> models,
                      Queue queue, Double reached) {
            this(engine, up, loading, footprintBytes, rssBytes, models, queue, reached, null);
        }

        /** Answers HTTP 401/403: it needs an API key, or another one. */
        public boolean needsKey() {
            return keyRefused != null && keyRefused == 1;
        }

        /** Configured, but has never answered since the agent started. */
        public boolean neverReachable() {
            return reached != null && reached == 0;
        }
    }

    /**
     * What the engine reports about its own queue (docs/engine-signals.md); each figure null when unknown,
     * the whole record null when the engine reports none. {@code waitSource} is {@code measured} or
     * {@code estimate} (from probe header time); {@code countsSource} what running and waiting are measured
     * from: {@code engine} (its own count) or {@code proxy} (the proxy's requests in flight against the engine's
     * batch size), null when unknown.
     */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Queue(Double running, Double waiting, Double kvCacheUsage, Double waitSeconds, String waitSource,
                        String countsSource) {
        /** Without saying what the counts are measured from. */
        public Queue(Double running, Double waiting, Double kvCacheUsage, Double waitSeconds, String waitSource) {
            this(running, waiting, kvCacheUsage, waitSeconds, waitSource, null);
        }
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Model(String model, Double contextLength, Double kvHeadroomTokens, Double gpuMemoryShare) {
        /** Without a GPU share (no GPU limit on this host). */
        public Model(String model, Double contextLength, Double kvHeadroomTokens) {
            this(model, contextLength, kvHeadroomTokens, null);
        }
    }

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Window(String engine, String model, String scenario, Double e2eP50, Double e2eP95, Double e2eP99,
                         Double ttftP50, Double ttftP95, Double ttftP99, Double errorRatio, Double samples,
                         Double baselineP95, Double decodeRate, Boolean interactive) {
    }

    public static final Signals EMPTY = new Signals(new Host(null, null, null, null, null, null, null), List.of(), List.of(),
            List.of());

    /** Reads the figures from a snapshot; {@code swapChange} comes from the evaluator's history. */
    public static Signals of(MetricSnapshot s, Double swapChange, List<String> interactiveScenarios) {
        Host host = new Host(s.value(HostMetrics.PAGING_USAGE, PagingState.USED), swapChange,
                s.value(HostMetrics.PRESSURE_LEVEL), s.value(HostMetrics.MEMORY_AVAILABLE),
                s.value(HostMetrics.MEMORY_LIMIT), s.value(HostMetrics.THERMAL_LEVEL),
                s.value(HostMetrics.CPU_SPEED_LIMIT), s.value(HostMetrics.GPU_MEMORY_LIMIT),
                s.value(HostMetrics.GPU_MEMORY_USAGE, io.tailwatch.metrics.AttrValues.GpuMemoryState.IN_USE));
        Map<String, List<Model>> models = new LinkedHashMap<>();
        List<String> engineNames = new ArrayList<>();
        for (Point p : s.of(EngineMetrics.UP)) {
            add(engineNames, p.attributes().get(AttrKeys.ENGINE));
        }
        for (Point p : s.of(EngineMetrics.REACHED)) { // an engine that refuses the key has no up series
            add(engineNames, p.attributes().get(AttrKeys.ENGINE));
        }
        for (Point p : s.of(EngineMetrics.MODEL_CONTEXT)) {
            String e = p.attributes().get(AttrKeys.ENGINE);
            String m = p.attributes().get(AttrKeys.MODEL);
            add(engineNames, e);
            models.computeIfAbsent(e, k -> new ArrayList<>()).add(new Model(m, p.value(),
                    s.value(EngineMetrics.KV_HEADROOM, AttrKeys.ENGINE, e, AttrKeys.MODEL, m),
                    s.value(EngineMetrics.GPU_MEMORY_SHARE, AttrKeys.ENGINE, e, AttrKeys.MODEL, m)));
        }
        for (Point p : s.of(EngineSideMetrics.REQUESTS)) {
            add(engineNames, p.attributes().get(AttrKeys.ENGINE));
        }
        for (Point p : s.of(EngineSideMetrics.KV_CACHE_USAGE)) {
            add(engineNames, p.attributes().get(AttrKeys.ENGINE));
        }
        for (Point p : s.of(EngineSideMetrics.QUEUE_WAIT)) {
            add(engineNames, p.attributes().get(AttrKeys.ENGINE));
        }
        List<Window> windows = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Point p : s.of(ProbeMetrics.WINDOW_SAMPLES)) {
            String e = p.attributes().get(AttrKeys.ENGINE);
            String m = p.attributes().get(AttrKeys.MODEL);
            String sc = p.attributes().get(AttrKeys.SCENARIO);
            add(engineNames, e);
            String key = e + "\u0000" + m + "\u0000" + sc;
            if (seen.contains(key)) {
                continue;
            }
            seen.add(key);
            String[] k = {AttrKeys.ENGINE, e, AttrKeys.MODEL, m, AttrKeys.SCENARIO, sc};
            windows.add(new Window(e, m, sc,
                    s.value(ProbeMetrics.WINDOW_E2E, Percentile.P50, k), s.value(ProbeMetrics.WINDOW_E2E, Percentile.P95, k),
                    s.value(ProbeMetrics.WINDOW_E2E, Percentile.P99, k), s.value(ProbeMetrics.WINDOW_TTFT, Percentile.P50, k),
                    s.value(ProbeMetrics.WINDOW_TTFT, Percentile.P95, k), s.value(ProbeMetrics.WINDOW_TTFT, Percentile.P99, k),
                    s.value(ProbeMetrics.WINDOW_ERROR_RATIO, k), p.value(),
                    s.value(AlertMetrics.BASELINE_E2E_P95, k),
                    s.value(ProbeMetrics.DECODE_RATE, AttrKeys.ENGINE, e, AttrKeys.SCENARIO, sc),
                    interactiveScenarios.contains(sc)));
        }
        List<Engine> engines = new ArrayList<>();
        for (String e : engineNames) {
            engines.add(new Engine(e, s.value(EngineMetrics.UP, AttrKeys.ENGINE, e), s.value(EngineMetrics.LOADING, AttrKeys.ENGINE, e),
                    s.value(HostMetrics.PROCESS_FOOTPRINT, AttrKeys.ENGINE, e), s.value(HostMetrics.PROCESS_RSS, AttrKeys.ENGINE, e),
                    models.getOrDefault(e, List.of()), queue(s, e), s.value(EngineMetrics.REACHED, AttrKeys.ENGINE, e),
                    s.value(EngineMetrics.KEY_REFUSED, AttrKeys.ENGINE, e),
                    s.value(HostMetrics.PROCESS_GPU_UTILIZATION, AttrKeys.ENGINE, e)));
        }
        return new Signals(host, engines, windows, lanes(s));
    }

    /** Every lane the proxies report a window for, engine by engine. */
    private static List<Lane> lanes(MetricSnapshot s) {
        List<Lane> out = new ArrayList<>();
        for (Point p : s.of(ProxyMetrics.LANE_WINDOW_REQUESTS)) {
            String e = p.attributes().get(AttrKeys.ENGINE);
            String l = p.attributes().get(AttrKeys.LANE);
            String[] k = {AttrKeys.ENGINE, e, AttrKeys.LANE, l};
            out.add(new Lane(e, l, p.value(), s.value(ProxyMetrics.LANE_WINDOW_GOODPUT, k), s.value(ProxyMetrics.LANE_SLO_TARGET, k),
                    s.value(ProxyMetrics.LANE_WINDOW_TTFT, Percentile.P95, k), s.value(ProxyMetrics.LANE_SLO_TTFT, k),
                    s.value(ProxyMetrics.LANE_WINDOW_E2E, Percentile.P95, k), s.value(ProxyMetrics.LANE_SLO_E2E, k),
                    s.value(ProxyMetrics.LANE_WINDOW_QUEUE_WAIT, Percentile.P95, k),
                    s.value(ProxyMetrics.LANE_WINDOW_IN_FLIGHT, k)));
        }
        return out;
    }

    /** The engine's own queue figures; the measured queue wait is preferred over the estimate. */
    private static Queue queue(MetricSnapshot s, String e) {
        Double running = s.value(EngineSideMetrics.REQUESTS, RequestState.RUNNING, AttrKeys.ENGINE, e);
        Double waiting = s.value(EngineSideMetrics.REQUESTS, RequestState.WAITING, AttrKeys.ENGINE, e);
        Double kv = s.value(EngineSideMetrics.KV_CACHE_USAGE, AttrKeys.ENGINE, e);
        QueueWaitSource source = QueueWaitSource.MEASURED;
        Double wait = s.value(EngineSideMetrics.QUEUE_WAIT, source, AttrKeys.ENGINE, e);
        if (wait == null) {
            source = QueueWaitSource.ESTIMATE;
            wait = s.value(EngineSideMetrics.QUEUE_WAIT, source, AttrKeys.ENGINE, e);
        }
        if (running == null && waiting == null && kv == null && wait == null) {
            return null;
        }
        String counts = null;
        for (Point p : s.of(EngineSideMetrics.REQUESTS)) {
            if (e.equals(p.attributes().get(AttrKeys.ENGINE))) {
                counts = p.attributes().get(AttrKeys.REQUESTS_SOURCE);
            }
        }
        return new Queue(running, waiting, kv, wait, wait == null ? null : source.value(), counts);
    }

    private static void add(List<String> names, String name) {
        if (name != null && !names.contains(name)) {
            names.add(name);
        }
    }

    public Engine engine(String name) {
        for (Engine e : engines) {
            if (e.engine().equals(name)) {
                return e;
            }
        }
        return null;
    }
}
