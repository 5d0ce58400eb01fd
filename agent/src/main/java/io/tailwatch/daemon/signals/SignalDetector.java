package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.http.BoundedJson;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides which sources an engine's signals come from, by asking the engine (or by the pinned
 * {@code signals.source}). Auto-detection, in order:
 * <ol>
 * <li>{@code GET /metrics}: JSON with {@code in_flight} is mlx-vlm; Prometheus text with
 * {@code vllm:}, {@code vllm_mlx_} or {@code llamacpp:} families is read as such;</li>
 * <li>{@code GET /slots} (unless /metrics was vLLM or mlx-vlm): a list of slot objects is llama.cpp;</li>
 * <li>{@code GET /v1/status} when /metrics was vllm-mlx, or when nothing was found yet: vllm-mlx's status (its
 * counts without {@code --enable-metrics}, the oldest waiting request's age with it);</li>
 * <li>when nothing was found: {@code GET /api/v1/models}, LM Studio's loaded instances (its batch size);</li>
 * <li>when nothing was found: {@code GET /healthz}, then {@code /health}, with the configured queue field;</li>
 * <li>when still nothing: the header-time estimate from the probes.</li>
 * </ol>
 * An engine that does not answer at all is not decided; detection runs again at the next read.
 */
public final class SignalDetector {
    private SignalDetector() {
    }

    /**
     * The outcome. {@code decided} false means the engine could not be asked (not reachable, or too slow to tell);
     * {@code note} says in words what was found or why nothing was.
     */
    public record Detection(boolean decided, List<EngineSignalSource> sources, List<String> families, String note) {
        public Detection {
            sources = List.copyOf(sources);
            families = List.copyOf(families);
        }

        static Detection undecided(String note) {
            return new Detection(false, List.of(), List.of(), note);
        }

        public boolean onlyEstimate() {
            return sources.size() == 1 && sources.get(0) instanceof HeaderTimeEstimate;
        }
    }

    public static Detection detect(EngineEndpoint ep, EngineConfig.Signals cfg, HeaderTimeEstimate estimate,
                                   Duration deadline) {
        // Each request has the whole deadline: detection is rare, and a cold connection may be slow.
        try {
            // One arm per SignalSourceSetting and no default: a setting added there does not compile until it has one here.
            return switch (cfg.source()) {
                case AUTO -> auto(ep, cfg, estimate, deadline);
                case NONE -> new Detection(true, List.of(), List.of(), "off (signals.source: none)");
                case HEADER_ESTIMATE -> new Detection(true, List.of(estimate), List.of(),
                        "pinned: queue wait estimated from probe header time");
                case VLLM -> new Detection(true, List.of(new PrometheusTextSource(ep)), List.of(), "pinned: vllm");
                case MLX_VLM -> new Detection(true, List.of(new MlxVlmJsonSource(ep)), List.of(), "pinned: mlx_vlm");
                case LLAMACPP -> llamaCpp(ep, deadline);
                case HEALTH_QUEUE -> healthQueue(ep, cfg.healthQueueField(), deadline, true);
            };
        } catch (SignalFailure f) {
            return Detection.undecided("engine not reachable: " + f.getMessage());
        }
    }

    /** A connection-level failure means the engine is not there to be asked; anything else is an answer. */
    private static boolean unreachable(SignalFailure f) {
        String t = f.errorType();
        return t.equals(ProbeErrors.CONNECT_REFUSED) || t.equals(ProbeErrors.CONNECT_TIMEOUT);
    }

    /** No answer in time (or a dropped one) says nothing about what the endpoint would have answered. */
    private static boolean inconclusive(SignalFailure f) {
        String t = f.errorType();
        return t.equals(SignalFailure.TIMEOUT) || t.equals(ProbeErrors.CUT);
    }

    private static Detection auto(EngineEndpoint ep, EngineConfig.Signals cfg, HeaderTimeEstimate estimate, Duration deadline)
            throws SignalFailure {
        List<EngineSignalSource> sources = new ArrayList<>();
        List<String> families = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        boolean skipSlots = false;
        boolean slow = false;
        try {
            MetricsAnswer b = metrics(ep, deadline);
            if (b.json() != null) {
                JsonNode n = b.json();
                if (MlxVlmJsonSource.looksLikeMlxVlm(n)) {
                    sources.add(new MlxVlmJsonSource(ep));
                    families.add("mlx_vlm");
                    skipSlots = true;
                    notes.add("/metrics is mlx-vlm JSON");
                } else {
                    notes.add("/metrics is JSON without in_flight");
                }
            } else {
                List<String> f = PrometheusTextSource.flavors(b.text());
                if (f.isEmpty()) {
                    notes.add("/metrics has no engine families");
                } else {
                    sources.add(new PrometheusTextSource(ep));
                    families.addAll(f);
                    skipSlots = !f.contains("llamacpp");
                    notes.add("/metrics exports " + String.join(", ", f));
                }
            }
        } catch (SignalFailure f) {
            if (unreachable(f)) {
                throw f;
            }
            slow |= inconclusive(f);
            notes.add("/metrics: " + f.errorType());
        }
        if (!skipSlots) {
            try {
                JsonNode n = ep.getJson(LlamaCppSlotsSource.PATH, deadline);
                if (LlamaCppSlotsSource.looksLikeSlots(n)) {
                    sources.add(new LlamaCppSlotsSource(ep));
                    if (!families.contains("llamacpp")) {
                        families.add("llamacpp");
                    }
                    notes.add("/slots lists llama.cpp slots");
                } else {
                    notes.add("/slots is not a slot list");
                }
            } catch (SignalFailure f) {
                if (unreachable(f)) {
                    throw f;
                }
                slow |= inconclusive(f);
                notes.add("/slots: " + f.errorType());
            }
        }
        if (sources.isEmpty() || families.contains("vllm_mlx")) {
            slow |= probe(ep, VllmMlxStatusSource.PATH, VllmMlxStatusSource::looksLikeVllmMlx,
                    () -> new VllmMlxStatusSource(ep), "vllm_mlx", "vllm-mlx status", sources, families, notes, deadline);
        }
        if (sources.isEmpty()) {
            slow |= probe(ep, LmStudioModelsSource.PATH, LmStudioModelsSource::looksLikeLmStudio,
                    () -> new LmStudioModelsSource(ep), "lmstudio", "LM Studio's loaded instances", sources, families, notes,
                    deadline);
        }
        if (sources.isEmpty() && slow) {
            // Settling on the estimate now could hide a /metrics that was merely slow: ask again next time.
            return Detection.undecided("engine slow to answer (" + String.join("; ", notes) + "); asking again");
        }
        if (sources.isEmpty()) {
            Detection h = healthQueue(ep, cfg.healthQueueField(), deadline, false);
            if (h != null) {
                return new Detection(true, h.sources(), families, String.join("; ", notes) + "; " + h.note());
            }
            notes.add("no " + cfg.healthQueueField() + " in /healthz or /health");
            sources.add(estimate);
            notes.add("queue wait is estimated from probe header time");
        }
        return new Detection(true, sources, families, String.join("; ", notes));
    }

    /**
     * GET {@code path} as JSON; when {@code looks} accepts it, adds the source and family. True when the answer
     * was inconclusive (timeout, cut); an unreachable engine throws.
     */
    private static boolean probe(EngineEndpoint ep, String path, java.util.function.Predicate<JsonNode> looks,
                                 java.util.function.Supplier<EngineSignalSource> source, String family, String what,
                                 List<EngineSignalSource> sources, List<String> families, List<String> notes,
                                 Duration deadline) throws SignalFailure {
        try {
            if (looks.test(ep.getJson(path, deadline))) {
                sources.add(source.get());
                if (!families.contains(family)) {
                    families.add(family);
                }
                notes.add(path + " is " + what);
            } else {
                notes.add(path + " is not " + what);
            }
            return false;
        } catch (SignalFailure f) {
            if (unreachable(f)) {
                throw f;
            }
            notes.add(path + ": " + f.errorType());
            return inconclusive(f);
        }
    }

    /** What /metrics answered: a bounded JSON tree (mlx-vlm) or the engine families of Prometheus text. */
    record MetricsAnswer(JsonNode json, PrometheusTextParser.Exposition text) {
    }

    /**
     * GET /metrics streamed: JSON (by its content type or first byte) into a bounded tree, text through
     * the streaming parser keeping only the engine families, so neither is held whole.
     */
    static MetricsAnswer metrics(EngineEndpoint ep, Duration deadline) throws SignalFailure {
        String path = PrometheusTextSource.PATH;
        return ep.stream(path, EngineEndpoint.ACCEPT_METRICS, deadline, (type, body) -> {
            java.io.BufferedInputStream in = new java.io.BufferedInputStream(body, 512);
            String t = type == null ? "" : type.toLowerCase(java.util.Locale.ROOT);
            if (t.contains("json") || (!t.startsWith("text/") && startsJson(in))) {
                try {
                    BoundedJson.Result r = BoundedJson.read(in, BoundedJson.Limits.DEFAULT);
                    if (r.root() == null) {
                        throw new SignalFailure(SignalFailure.MALFORMED, path, "empty body");
                    }
                    return new MetricsAnswer(r.root(), null);
                } catch (BoundedJson.Partial p) {
                    throw p.getCause() instanceof io.tailwatch.core.http.BodyStream.TooLarge big ? big
                            : (java.io.IOException) p.getCause();
                } catch (com.fasterxml.jackson.core.JacksonException e) {
                    throw new SignalFailure(SignalFailure.MALFORMED, path, "not JSON: " + e.getOriginalMessage());
                }
            }
            try {
                return new MetricsAnswer(null, PrometheusTextParser.parse(in, PrometheusTextSource::wanted,
                        PrometheusTextParser.DEFAULT_MAX_SAMPLES, PrometheusTextSource.MAX_KEPT_SAMPLES));
            } catch (PrometheusTextParser.FormatException e) {
                throw new SignalFailure(SignalFailure.MALFORMED, path, "not Prometheus text: " + e.getMessage());
            } catch (PrometheusTextParser.OverLimit e) {
                throw new SignalFailure(ProbeErrors.OVER_LIMIT, path, e.getMessage());
            }
        });
    }

    /** The first byte that is not white space opens a JSON object or array (the stream is reset to its start). */
    private static boolean startsJson(java.io.BufferedInputStream in) throws java.io.IOException {
        in.mark(512);
        try {
            for (int i = 0; i < 256; i++) {
                int c = in.read();
                if (c < 0) {
                    return false;
                }
                if (!Character.isWhitespace(c)) {
                    return c == '{' || c == '[';
                }
            }
            return false;
        } finally {
            in.reset();
        }
    }

    private static Detection llamaCpp(EngineEndpoint ep, Duration deadline) throws SignalFailure {
        List<EngineSignalSource> sources = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        try {
            MetricsAnswer b = metrics(ep, deadline);
            if (b.text() != null && PrometheusTextSource.flavors(b.text()).contains("llamacpp")) {
                sources.add(new PrometheusTextSource(ep));
                notes.add("/metrics exports llamacpp");
            }
        } catch (SignalFailure f) {
            if (unreachable(f)) {
                throw f;
            }
            notes.add("/metrics: " + f.errorType() + " (started without --metrics?)");
        }
        try {
            if (LlamaCppSlotsSource.looksLikeSlots(ep.getJson(LlamaCppSlotsSource.PATH, deadline))) {
                sources.add(new LlamaCppSlotsSource(ep));
                notes.add("/slots lists slots");
            }
        } catch (SignalFailure f) {
            if (unreachable(f)) {
                throw f;
            }
            notes.add("/slots: " + f.errorType());
        }
        if (sources.isEmpty()) {
            // Read /slots anyway so its failure shows, classified, on every read.
            sources.add(new LlamaCppSlotsSource(ep));
        }
        return new Detection(true, sources, List.of("llamacpp"), "pinned: llamacpp; " + String.join("; ", notes));
    }

    /**
     * The first of /healthz and /health whose JSON holds {@code field}. Pinned: falls back to /healthz
     * (so failures show); auto: null when neither has it.
     */
    private static Detection healthQueue(EngineEndpoint ep, String field, Duration deadline, boolean pinned)
            throws SignalFailure {
        for (String path : HealthQueueSource.PATHS) {
            try {
                HttpTransport.JsonReply r = ep.answerJson(path, deadline);
                if (r.status() / 100 != 2 && r.status() != 503) {
                    continue;
                }
                JsonNode n = HealthQueueSource.tree(r, path);
                JsonNode v = HealthQueueSource.at(n, field);
                if (v != null && (v.isNumber() || v.isTextual())) {
                    return new Detection(true, List.of(new HealthQueueSource(ep, path, field)), List.of(),
                            (pinned ? "pinned: " : "") + path + " reports " + field);
                }
            } catch (SignalFailure f) {
                if (unreachable(f)) {
                    throw f;
                }
            }
        }
        if (!pinned) {
            return null;
        }
        return new Detection(true, List.of(new HealthQueueSource(ep, HealthQueueSource.PATHS.get(0), field)), List.of(),
                "pinned: health_queue, but neither /healthz nor /health has " + field + " yet");
    }
}
