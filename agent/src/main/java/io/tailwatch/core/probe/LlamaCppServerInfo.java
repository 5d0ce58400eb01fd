package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.http.HttpTransport;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a llama.cpp server says about its loaded model: {@code GET /props} (the context per slot in
 * {@code default_generation_settings.n_ctx}, {@code total_slots}, {@code model_path}, and a top-level
 * {@code n_ctx} where the build reports one) and {@code GET /v1/models} ({@code meta}: {@code n_ctx_train},
 * {@code n_embd}, {@code n_params} and {@code size}, the GGUF weights in bytes; {@code meta} is null while
 * the model loads). Neither answer gives layer or KV-head counts. Both reads are bounded in bytes
 * ({@link HttpTransport#json}) and share one deadline. A field the server did not send is null, never 0.
 *
 * @param contextPerSlot {@code default_generation_settings.n_ctx}
 * @param contextTotal top-level {@code n_ctx} when sent, else null
 * @param notes what could not be read, one sentence each (e.g. /v1/models failed)
 */
public record LlamaCppServerInfo(Long contextPerSlot, Long contextTotal, Integer totalSlots, String modelPath,
                                 String buildInfo, Long contextTrain, Long embeddingLength, Long parameters,
                                 Long weightsBytes, List<String> notes) {

    /** /props could not be read or is not a llama.cpp answer. */
    public static final class Failure extends Exception {
        public Failure(String message) {
            super(message);
        }
    }

    /** The whole context the server allocated: top-level n_ctx, else per slot x slots (null when unknown). */
    public Long servedContext() {
        return report().servedContext();
    }

    /** What the server reported, as KV-cache sizing takes it. */
    public io.tailwatch.core.kv.EngineReport report() {
        return new io.tailwatch.core.kv.EngineReport(modelPath, contextPerSlot, contextTotal, totalSlots, contextTrain, weightsBytes,
                notes);
    }

    /**
     * Reads /props (required) and /v1/models (optional: its failure becomes a note) from {@code base}
     * (scheme, host and port; a trailing / or /v1 is dropped).
     */
    public static LlamaCppServerInfo read(URI base, String apiKey, Duration connectTimeout, Duration deadline)
            throws Failure {
        URI root = EngineApi.base(base);
        long end = System.nanoTime() + deadline.toNanos();
        URI propsUri = URI.create(root + "/props");
        HttpTransport.JsonReply p = HttpTransport.json(propsUri, null, apiKey, connectTimeout, deadline);
        if (p.error() != null) {
            throw new Failure("GET " + propsUri + ": " + p.error());
        }
        if (p.status() / 100 != 2) {
            throw new Failure("GET " + propsUri + ": HTTP " + p.status() + " (is this a llama.cpp server?)");
        }
        JsonNode props = p.body();
        JsonNode dgs = props == null ? null : props.get("default_generation_settings");
        if (dgs == null || !dgs.isObject()) {
            throw new Failure("GET " + propsUri + ": the answer has no default_generation_settings (is this llama.cpp?)");
        }
        Long perSlot = positive(dgs.get("n_ctx"), "n_ctx", InputRange.MAX_CONTEXT);
        Long total = positive(props.get("n_ctx"), "n_ctx", InputRange.MAX_CONTEXT);
        Long slots = positive(props.get("total_slots"), "total_slots", 1_000_000L);
        String path = text(props.get("model_path"));
        String build = text(props.get("build_info"));
        List<String> notes = new ArrayList<>();
        if (perSlot == null) {
            notes.add("/props has no default_generation_settings.n_ctx");
        }
        Long train = null;
        Long embd = null;
        Long params = null;
        Long size = null;
        URI modelsUri = URI.create(root + "/v1/models");
        Duration left = Duration.ofNanos(Math.max(1, end - System.nanoTime()));
        HttpTransport.JsonReply m = HttpTransport.json(modelsUri, null, apiKey, connectTimeout, left);
        if (m.error() != null || m.status() / 100 != 2) {
            notes.add("GET " + modelsUri + ": " + (m.error() != null ? m.error() : "HTTP " + m.status())
                    + "; the weights' size is unknown");
        } else {
            JsonNode meta = m.body() == null ? null : m.body().path("data").path(0).get("meta");
            if (meta == null || !meta.isObject()) {
                notes.add("GET " + modelsUri + ": no meta for the model (still loading?); the weights' size is unknown");
            } else {
                train = positive(meta.get("n_ctx_train"), "n_ctx_train", InputRange.MAX_CONTEXT);
                embd = positive(meta.get("n_embd"), "n_embd", 1L << 24);
                params = positive(meta.get("n_params"), "n_params", 1L << 50);
                size = positive(meta.get("size"), "size", InputRange.MAX_MODEL_BYTES);
            }
        }
        return new LlamaCppServerInfo(perSlot, total, slots == null ? null : Math.toIntExact(Math.min(slots, Integer.MAX_VALUE)),
                path, build, train, embd, params, size, List.copyOf(notes));
    }

    /** A positive whole figure of llama.cpp's answers up to {@code max}; 0 means unknown there, out of range is counted. */
    private static Long positive(JsonNode n, String field, long max) {
        Long v = InputRange.count("llamacpp_props", field, n, max);
        return v != null && v > 0 ? v : null;
    }

    private static String text(JsonNode n) {
        return n != null && n.isTextual() && !n.asText().isEmpty() ? n.asText() : null;
    }
}
