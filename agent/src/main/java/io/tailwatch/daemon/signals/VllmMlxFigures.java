package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.probe.InputRange;
import io.tailwatch.daemon.signals.PrometheusTextParser.Exposition;
import io.tailwatch.daemon.signals.PrometheusTextParser.Sample;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What vllm-mlx tells beside its request counts, for the status details, from either of its endpoints:
 * {@code /metrics} ({@code vllm_mlx_metal_memory_bytes{kind="active|peak|cache"}}, the {@code vllm_mlx_cache_*}
 * gauges, {@code vllm_mlx_engine_type{engine_type}} and the {@code vllm_mlx_inference_ttft_seconds} histogram)
 * and {@code /v1/status} ({@code metal.*_memory_gb}, {@code cache}, {@code requests}). The server writes 0 for
 * what it does not have (Metal memory off a Mac, cache figures without a cache): such zeros are left out.
 * Every number is range-checked through {@link InputRange}.
 */
final class VllmMlxFigures {
    static final String SOURCE = "vllm_mlx";
    static final String TTFT = "vllm_mlx_inference_ttft_seconds";
    /** Requests of /v1/status looked at for the oldest waiting one. */
    static final int MAX_REQUESTS_SCANNED = 1024;
    private static final String[] METAL_KINDS = {"active", "peak", "cache"};

    private final PrometheusTextSource.HistogramGrowth ttft = new PrometheusTextSource.HistogramGrowth();

    /** {@code vllm_mlx_model_loaded} is 1 (an engine is there); absent counts as loaded. */
    static boolean modelLoaded(Exposition e) {
        Double v = e.max("vllm_mlx_model_loaded");
        return v == null || v == 1.0;
    }

    /** The details the exposition gives. */
    void details(Exposition e, Map<String, Object> details) {
        details.put("model_loaded", modelLoaded(e));
        for (Sample s : e.samples("vllm_mlx_engine_type")) {
            if (s.value() == 1.0 && s.labels().get("engine_type") != null) {
                details.put("engine_type", s.labels().get("engine_type"));
            }
        }
        Map<String, Double> metal = new LinkedHashMap<>();
        for (Sample s : e.samples("vllm_mlx_metal_memory_bytes")) {
            String kind = s.labels().get("kind");
            for (String k : METAL_KINDS) {
                if (k.equals(kind)) {
                    putBytes(metal, k, s.value());
                }
            }
        }
        putMetal(details, metal);
        String cacheType = null;
        for (Sample s : e.samples("vllm_mlx_cache_type")) {
            if (s.value() == 1.0) {
                cacheType = s.labels().get("cache_type");
            }
        }
        if (cacheType != null) {
            details.put("cache_type", cacheType);
        }
        // Without a cache the server writes 0 for every cache figure; a server without the cache_type family is taken at its word.
        if (!"none".equals(cacheType)) {
            Map<String, Object> cache = new LinkedHashMap<>();
            putRatio(cache, "hit_rate", e.max("vllm_mlx_cache_hit_rate"));
            putRatio(cache, "utilization", e.max("vllm_mlx_cache_utilization_ratio"));
            putBytes(cache, "memory_bytes", e.max("vllm_mlx_cache_memory_bytes"));
            putBytes(cache, "memory_limit_bytes", e.max("vllm_mlx_cache_memory_limit_bytes"));
            if (!cache.isEmpty()) {
                details.put("cache", cache);
            }
        }
        Double mean = InputRange.number(SOURCE, "ttft_seconds", ttft.mean(e, TTFT), 0, 86_400);
        if (mean != null) {
            details.put("ttft_mean_seconds", mean);
            details.put("ttft_requests", ttft.lastCount());
        }
    }

    /** The details /v1/status gives (its counts are read by {@link VllmMlxStatusSource}). */
    static void details(JsonNode n, Map<String, Object> details) {
        if (n.path("status").isTextual()) {
            details.put("status", InputText.clip(n.path("status").asText()));
        }
        JsonNode m = n.path("metal");
        Map<String, Double> metal = new LinkedHashMap<>();
        for (String k : METAL_KINDS) {
            JsonNode gb = m.path(k + "_memory_gb");
            if (gb.isNumber()) {
                putBytes(metal, k, gb.doubleValue() * 1e9);
            }
        }
        putMetal(details, metal);
        JsonNode c = n.path("cache");
        if (c.isObject()) {
            Map<String, Object> cache = new LinkedHashMap<>();
            putRatio(cache, "hit_rate", num(c.path("hit_rate").isNumber() ? c.path("hit_rate") : c.path("cache_hit_rate")));
            putRatio(cache, "utilization", num(c.path("memory_utilization")));
            Double mb = num(c.path("current_memory_mb"));
            putBytes(cache, "memory_bytes", mb == null ? null : mb * 1024 * 1024);
            if (!cache.isEmpty()) {
                details.put("cache", cache);
            }
        }
        Double tps = InputRange.number(SOURCE, "generation_tps", n.path("generation_tps"), 0, InputRange.MAX_TOKEN_RATE);
        if (tps != null && tps > 0) {
            details.put("generation_tokens_per_second", tps);
        }
        Double oldest = null;
        int seen = 0;
        for (JsonNode r : n.path("requests")) {
            if (++seen > MAX_REQUESTS_SCANNED) {
                break;
            }
            if ("waiting".equals(r.path("status").asText(""))) {
                Double age = InputRange.number(SOURCE, "elapsed_s", r.path("elapsed_s"), 0, 86_400);
                if (age != null && (oldest == null || age > oldest)) {
                    oldest = age;
                }
            }
        }
        if (oldest != null) {
            details.put("oldest_waiting_seconds", oldest);
        }
    }

    private static Double num(JsonNode v) {
        return v != null && v.isNumber() ? v.doubleValue() : null;
    }

    /** Metal memory only when the active figure is above 0: the server writes 0 where Metal is not there. */
    private static void putMetal(Map<String, Object> details, Map<String, Double> metal) {
        Double active = metal.get("active");
        if (active != null && active > 0) {
            details.put("metal_memory_bytes", metal);
        }
    }

    private static void putBytes(Map<String, ? super Double> out, String field, Double v) {
        Double ok = InputRange.number(SOURCE, field, v, 0, InputRange.MAX_MODEL_BYTES);
        if (ok != null) {
            out.put(field, ok);
        }
    }

    private static void putRatio(Map<String, Object> out, String field, Double v) {
        Double ok = InputRange.number(SOURCE, field, v, 0, 1);
        if (ok != null) {
            out.put(field, ok);
        }
    }

    /** Engine text kept for the status: at most 64 characters. */
    static final class InputText {
        private InputText() {
        }

        static String clip(String s) {
            return s.length() <= 64 ? s : s.substring(0, 64) + "...";
        }
    }
}
