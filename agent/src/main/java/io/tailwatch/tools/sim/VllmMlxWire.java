package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * vllm-mlx ({@code vllm-mlx serve MODEL --enable-metrics}) as its server answers: {@code /v1/models} with
 * {@code owned_by: "vllm-mlx"}, the open {@code /health} ({@code status: "healthy"}, {@code model_loaded},
 * {@code engine_type}), {@code /v1/status} (scheduler counts, Metal memory in GB, cache figures, one entry per
 * request with {@code status} waiting or running and {@code elapsed_s}) and, with metrics on, {@code /metrics}
 * in the Prometheus client's text format: the {@code vllm_mlx_*} gauges (scheduler waiting/running, model
 * loaded, engine type, Metal memory by {@code kind} in bytes, cache type and figures) and the
 * {@code vllm_mlx_inference_ttft_seconds} histogram by {@code endpoint} and {@code stream}. With metrics off,
 * {@code /metrics} is 404 {@code {"detail":"Metrics endpoint is disabled"}}. Running and waiting are the
 * simulator's slots in use and requests waiting for one. Completions are the OpenAI wire's.
 */
public final class VllmMlxWire extends FlavorWire<VllmMlxWire> {
    static final double[] TTFT_BUCKETS = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    private volatile boolean metrics = true;
    private volatile boolean modelLoaded = true;
    private volatile double metalActiveGb = 4.62;
    private volatile double metalPeakGb = 5.1;
    private volatile double metalCacheGb = 0.75;
    private volatile double cacheHitRate = 0.625;
    private volatile boolean batched = true;

    VllmMlxWire(EngineSimulator sim, EngineSimulator.Wire completions) {
        super(sim, completions);
    }

    /** As started with or without {@code --enable-metrics}. */
    public VllmMlxWire metrics(boolean on) {
        metrics = on;
        return this;
    }

    /** No engine (the model unloaded): /v1/status says not_loaded and /metrics writes 0 for every scheduler figure. */
    public VllmMlxWire modelLoaded(boolean loaded) {
        modelLoaded = loaded;
        return this;
    }

    /** Metal memory in GB as mlx reports it (0 everywhere: no Metal, as on Linux). */
    public VllmMlxWire metal(double activeGb, double peakGb, double cacheGb) {
        metalActiveGb = activeGb;
        metalPeakGb = peakGb;
        metalCacheGb = cacheGb;
        return this;
    }

    /** As started with {@code --continuous-batching} (batched, the default here) or without (the simple engine). */
    public VllmMlxWire batched(boolean on) {
        batched = on;
        return this;
    }

    public VllmMlxWire cacheHitRate(double rate) {
        cacheHitRate = rate;
        return this;
    }

    private String engineType() {
        return batched ? "batched" : "simple";
    }

    @Override
    boolean own(HttpExchange x) throws IOException {
        switch (x.getRequestURI().getPath()) {
            case "/metrics" -> {
                if (metrics) {
                    SimReplies.send(x, 200, "text/plain; version=0.0.4; charset=utf-8", exposition());
                } else {
                    SimReplies.json(x, 404, "{\"detail\":\"Metrics endpoint is disabled\"}");
                }
            }
            case "/health" -> SimReplies.json(x, 200, health());
            case "/v1/status" -> SimReplies.json(x, 200, status());
            case "/v1/models" -> {
                ObjectNode root = EngineSimulator.JSON.createObjectNode();
                SimReplies.modelList(root, java.util.List.of(sim.options().model())).get(0).put("owned_by", "vllm-mlx");
                SimReplies.json(x, 200, root.toString());
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private String health() {
        ObjectNode h = EngineSimulator.JSON.createObjectNode();
        h.put("status", "healthy");
        h.put("model_loaded", modelLoaded);
        h.put("model_name", sim.options().model());
        h.putArray("available_models").add(sim.options().model());
        h.put("model_type", "llm");
        h.put("engine_type", modelLoaded ? engineType() : "unknown");
        h.putNull("mcp");
        return h.toString();
    }

    private String status() {
        ObjectNode s = EngineSimulator.JSON.createObjectNode();
        if (!modelLoaded) {
            s.put("status", "not_loaded");
            s.put("model", sim.options().model());
            s.putNull("residency");
            s.putArray("requests");
            s.putNull("embedding");
            return s.toString();
        }
        int waiting = sim.waitingNow();
        int running = sim.activeNow();
        s.put("status", "running");
        s.put("model", sim.options().model());
        s.putNull("residency");
        s.putNull("embedding");
        s.put("uptime_s", 12.5);
        s.put("steps_executed", 42);
        s.put("num_running", running);
        s.put("num_waiting", waiting);
        s.put("total_requests_processed", sim.served());
        s.put("total_prompt_tokens", 0);
        s.put("total_completion_tokens", 0);
        s.put("generation_tps", 0);
        s.put("prompt_tps", 0);
        ObjectNode metal = s.putObject("metal");
        metal.put("active_memory_gb", metalActiveGb);
        metal.put("peak_memory_gb", metalPeakGb);
        metal.put("cache_memory_gb", metalCacheGb);
        ObjectNode cache = s.putObject("cache");
        cache.put("hits", 5);
        cache.put("misses", 3);
        cache.put("hit_rate", cacheHitRate);
        cache.put("current_memory_mb", 256.0);
        cache.put("max_memory_mb", 1024.0);
        cache.put("memory_utilization", 0.25);
        cache.put("entry_count", 4);
        s.putObject("mtp").put("enabled", false);
        ArrayNode reqs = s.putArray("requests");
        for (int i = 0; i < waiting; i++) {
            ObjectNode r = reqs.addObject();
            r.put("request_id", "sim-w" + i);
            r.put("status", "waiting");
            r.put("phase", "queued");
            r.put("elapsed_s", 0.0);
        }
        for (int i = 0; i < running; i++) {
            ObjectNode r = reqs.addObject();
            r.put("request_id", "sim-r" + i);
            r.put("status", "running");
            r.put("phase", "generation");
        }
        return s.toString();
    }

    /** The Prometheus client's text: HELP and TYPE before each family, floats written as Python writes them. */
    private String exposition() {
        StringBuilder b = new StringBuilder(4096);
        boolean loaded = modelLoaded;
        gauge(b, "vllm_mlx_model_loaded", "Whether a generation model is currently loaded.", loaded ? 1 : 0);
        family(b, "vllm_mlx_engine_type", "Current engine mode.", "gauge");
        for (String t : List.of("simple", "batched", "unknown")) {
            b.append("vllm_mlx_engine_type{engine_type=\"").append(t).append("\"} ")
                    .append(py(t.equals(loaded ? engineType() : "unknown") ? 1 : 0)).append('\n');
        }
        gauge(b, "vllm_mlx_scheduler_waiting_requests", "Requests currently waiting in the scheduler.",
                loaded ? sim.waitingNow() : 0);
        gauge(b, "vllm_mlx_scheduler_running_requests", "Requests currently running in the scheduler.",
                loaded ? sim.activeNow() : 0);
        family(b, "vllm_mlx_metal_memory_bytes", "Metal memory usage in bytes.", "gauge");
        double[] metal = loaded ? new double[]{metalActiveGb, metalPeakGb, metalCacheGb} : new double[3];
        String[] kinds = {"active", "peak", "cache"};
        for (int i = 0; i < 3; i++) {
            b.append("vllm_mlx_metal_memory_bytes{kind=\"").append(kinds[i]).append("\"} ").append(py(metal[i] * 1e9)).append('\n');
        }
        family(b, "vllm_mlx_cache_type", "Current active cache backend.", "gauge");
        for (String t : List.of("none", "prefix_cache", "memory_aware_cache", "paged_cache")) {
            b.append("vllm_mlx_cache_type{cache_type=\"").append(t).append("\"} ")
                    .append(py(t.equals(loaded ? "memory_aware_cache" : "none") ? 1 : 0)).append('\n');
        }
        gauge(b, "vllm_mlx_cache_hit_rate", "Cache hit rate.", loaded ? cacheHitRate : 0);
        gauge(b, "vllm_mlx_cache_memory_bytes", "Cache memory usage in bytes.", loaded ? 256.0 * 1024 * 1024 : 0);
        family(b, "vllm_mlx_inference_ttft_seconds", "Time to first token for streaming endpoints.", "histogram");
        List<EngineSimulator.Generation> gens = sim.generations();
        if (!gens.isEmpty()) {
            String labels = "endpoint=\"chat_completions\",stream=\"true\"";
            double sum = 0;
            long[] counts = new long[TTFT_BUCKETS.length];
            for (EngineSimulator.Generation g : gens) {
                double t = (g.firstTokenAt() - g.receivedAt()) / 1e9;
                sum += t;
                for (int i = 0; i < TTFT_BUCKETS.length; i++) {
                    if (t <= TTFT_BUCKETS[i]) {
                        counts[i]++;
                    }
                }
            }
            for (int i = 0; i < TTFT_BUCKETS.length; i++) {
                b.append("vllm_mlx_inference_ttft_seconds_bucket{").append(labels).append(",le=\"").append(py(TTFT_BUCKETS[i]))
                        .append("\"} ").append(py(counts[i])).append('\n');
            }
            b.append("vllm_mlx_inference_ttft_seconds_bucket{").append(labels).append(",le=\"+Inf\"} ").append(py(gens.size())).append('\n');
            b.append("vllm_mlx_inference_ttft_seconds_count{").append(labels).append("} ").append(py(gens.size())).append('\n');
            b.append("vllm_mlx_inference_ttft_seconds_sum{").append(labels).append("} ").append(sum).append('\n');
        }
        return b.toString();
    }

    private static void family(StringBuilder b, String name, String help, String type) {
        b.append("# HELP ").append(name).append(' ').append(help).append('\n');
        b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void gauge(StringBuilder b, String name, String help, double v) {
        family(b, name, help, "gauge");
        b.append(name).append(' ').append(py(v)).append('\n');
    }

    /** A float as Python's repr writes it: 1.0, 0.625, 4.62e+09. */
    static String py(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e16) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return Double.toString(v).replace("E", "e+").replace("e+-", "e-");
    }
}
