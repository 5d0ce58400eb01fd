package io.tailwatch.daemon.signals;

import io.tailwatch.daemon.signals.PrometheusTextParser.Exposition;
import io.tailwatch.daemon.signals.PrometheusTextParser.Sample;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An engine's Prometheus {@code GET /metrics}: vLLM ({@code vllm:num_requests_running|waiting},
 * {@code vllm:kv_cache_usage_perc}, older {@code vllm:gpu_cache_usage_perc}, and the
 * {@code vllm:request_queue_time_seconds} histogram, whose growth between two reads gives the
 * measured mean queue wait of the requests started in between), vllm-mlx started with --enable-metrics
 * (scheduler running and waiting gauges, read only while {@code vllm_mlx_model_loaded} is 1: with no engine it
 * writes 0 for figures it does not have; Metal memory, cache hit rate and the mean TTFT between two reads go
 * to the details, see {@link VllmMlxFigures}) and llama.cpp started with --metrics
 * ({@code llamacpp:requests_processing|requests_deferred}, {@code llamacpp:kv_cache_usage_ratio}
 * where the build exports it). Series with several label sets (one per model) are summed; KV-cache
 * use takes the fullest.
 */
public final class PrometheusTextSource extends EndpointSignalSource {
    public static final String KIND = SignalSource.PROMETHEUS.value();
    public static final String PATH = "/metrics";
    static final List<String> FAMILY_PREFIXES = List.of("vllm:", "vllm_mlx_", "llamacpp:");
    static final List<String> RUNNING = List.of("vllm:num_requests_running", "vllm_mlx_scheduler_running_requests",
            "llamacpp:requests_processing");
    static final List<String> WAITING = List.of("vllm:num_requests_waiting", "vllm_mlx_scheduler_waiting_requests",
            "llamacpp:requests_deferred");
    static final List<String> KV_USAGE = List.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
            "llamacpp:kv_cache_usage_ratio");
    static final String QUEUE_TIME = "vllm:request_queue_time_seconds";
    /** Gauges copied to the details as they are, when present. */
    static final List<String> EXTRAS = List.of("llamacpp:kv_cache_tokens", "llamacpp:n_busy_slots_per_decode");
    static final int MAX_EXTRA_SERIES = 16;

    private final HistogramGrowth queueTime = new HistogramGrowth();
    private final VllmMlxFigures vllmMlx = new VllmMlxFigures();

    public PrometheusTextSource(EngineEndpoint endpoint) {
        super(endpoint, KIND, PATH);
    }

    /** Samples of the engine families kept from one read: a few per model on real engines. */
    static final int MAX_KEPT_SAMPLES = 4096;

    /**
     * Streams the exposition line by line and keeps only the engine families (vllm:, vllm_mlx_,
     * llamacpp:), so an engine exporting 30,000 other samples costs one line of memory at a time.
     */
    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        Exposition e = endpoint.stream(PATH, EngineEndpoint.ACCEPT_METRICS, deadline, (type, in) -> {
            String t = type == null ? "" : type.toLowerCase(java.util.Locale.ROOT);
            if (t.contains("json")) {
                throw new SignalFailure(SignalFailure.MALFORMED, PATH, "answered JSON, not Prometheus text");
            }
            try {
                return PrometheusTextParser.parse(in, PrometheusTextSource::wanted,
                        PrometheusTextParser.DEFAULT_MAX_SAMPLES, MAX_KEPT_SAMPLES);
            } catch (PrometheusTextParser.FormatException ex) {
                throw new SignalFailure(SignalFailure.MALFORMED, PATH, "not Prometheus text: " + ex.getMessage());
            } catch (PrometheusTextParser.OverLimit ex) {
                throw new SignalFailure(io.tailwatch.core.http.ProbeErrors.OVER_LIMIT, PATH, ex.getMessage());
            }
        });
        return figures(e);
    }

    static boolean wanted(String name) {
        for (String p : FAMILY_PREFIXES) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    /** The engine families present (vllm, vllm_mlx, llamacpp), empty when none is. */
    static List<String> flavors(Exposition e) {
        List<String> out = new ArrayList<>();
        for (String p : FAMILY_PREFIXES) {
            if (e.hasPrefix(p)) {
                out.add(p.replaceAll("[:_]+$", ""));
            }
        }
        return out;
    }

    EngineSignals figures(Exposition e) throws SignalFailure {
        List<String> flavors = flavors(e);
        if (flavors.isEmpty()) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH,
                    "none of the vllm:, vllm_mlx_ or llamacpp: metric families is exported");
        }
        boolean mlxUnloaded = flavors.contains("vllm_mlx") && !VllmMlxFigures.modelLoaded(e);
        // vllm-mlx without an engine writes 0 for every scheduler figure: unknown, not an empty queue.
        Double running = mlxUnloaded ? null : first(e, RUNNING, false);
        Double waiting = mlxUnloaded ? null : first(e, WAITING, false);
        Double kv = first(e, KV_USAGE, true);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("families", flavors);
        Double wait = queueTime.mean(e, QUEUE_TIME);
        if (wait != null) {
            details.put("queue_wait_requests", queueTime.lastCount());
        }
        if (flavors.contains("vllm_mlx")) {
            vllmMlx.details(e, details);
        }
        for (String name : EXTRAS) {
            List<Sample> ss = e.samples(name);
            if (ss.isEmpty()) {
                continue;
            }
            Map<String, Double> series = new TreeMap<>();
            for (Sample s : ss) {
                if (series.size() >= MAX_EXTRA_SERIES) {
                    break;
                }
                series.put(s.labels().isEmpty() ? "" : s.labels().toString(), s.value());
            }
            details.put(name, series.size() == 1 && series.containsKey("") ? series.get("") : series);
        }
        if (running == null && waiting == null && kv == null && wait == null && !mlxUnloaded) {
            throw new SignalFailure(SignalFailure.MISSING_FIELD, PATH, "exports " + flavors
                    + " families but none of the request or KV-cache gauges");
        }
        return new EngineSignals(running, waiting, kv, wait, wait == null ? null : EngineSignals.MEASURED, details);
    }

    private static Double first(Exposition e, List<String> names, boolean max) {
        for (String n : names) {
            Double v = max ? e.max(n) : e.sum(n);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /**
     * The mean of a histogram's observations between two reads, from the growth of its _sum and _count
     * (series summed over their labels); null on the first read, when nothing was observed in between, or
     * after a counter reset.
     */
    static final class HistogramGrowth {
        private double lastSum = Double.NaN;
        private double lastCount = Double.NaN;
        private double count;

        Double mean(Exposition e, String histogram) {
            Double sum = e.sum(histogram + "_sum");
            Double n = e.sum(histogram + "_count");
            if (sum == null || n == null) {
                return null;
            }
            double ds = sum - lastSum;
            double dc = n - lastCount;
            lastSum = sum;
            lastCount = n;
            if (Double.isNaN(ds) || Double.isNaN(dc) || dc <= 0 || ds < 0) {
                return null;
            }
            count = dc;
            return ds / dc;
        }

        /** Observations behind the last mean. */
        double lastCount() {
            return count;
        }
    }
}
