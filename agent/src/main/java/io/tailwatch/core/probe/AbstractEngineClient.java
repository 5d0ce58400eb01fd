package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.metrics.AttrValues.TokenSource;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** The probe procedure shared by every API: resolve the model, stream, turn the measurement into a result. */
abstract class AbstractEngineClient implements EngineClient {
    protected final URI base;
    protected final String apiKey;
    protected final Duration connectTimeout;
    private final Clock clock = Clock.systemUTC();
    /** Streaming exchanges in flight, so that {@link #abort} can close them. */
    private final java.util.Set<HttpExchange> open = java.util.concurrent.ConcurrentHashMap.newKeySet();

    AbstractEngineClient(URI base, String apiKey, Duration connectTimeout) {
        this.base = base;
        this.apiKey = apiKey;
        this.connectTimeout = connectTimeout;
    }

    @Override
    public void abort() {
        for (HttpExchange x : open) {
            x.close();
        }
    }

    @Override
    public URI baseUri() {
        return base;
    }

    protected URI uri(String path) {
        return URI.create(base + path);
    }

    protected HttpTransport.JsonReply get(String path, Duration deadline) {
        return HttpTransport.json(uri(path), null, apiKey, connectTimeout, deadline);
    }

    protected HttpTransport.JsonReply post(String path, Object body, Duration deadline) {
        return HttpTransport.json(uri(path), body, apiKey, connectTimeout, deadline);
    }

    /** The streaming request for {@code model} and prompt text. */
    protected abstract HttpTransport.Request streamRequest(ProbeRequest r, String model, String prompt);

    protected abstract StreamParser parser();

    @Override
    public ProbeResult probe(ProbeRequest r) {
        ProbeWarmup.once(this, r); // once per process and API, before anything is timed
        Instant started = clock.instant();
        long t0 = System.nanoTime();
        String model = r.model();
        if (model == null) {
            model = defaultModel(r.totalTimeout().dividedBy(4));
            if (model == null) {
                // Say why there is no model: an engine that cannot be reached, or that refuses the key, is that
                // failure, not a missing model.
                Duration quick = r.totalTimeout().dividedBy(4);
                EngineHealth h = health(quick);
                HttpTransport.TextReply reach = h.needsKey() ? null
                        : HttpTransport.get(uri("/"), "*/*", apiKey, connectTimeout, quick);
                String type = h.needsKey() ? ProbeErrors.http(h.keyRefusedStatus())
                        : reach.error() != null ? reach.errorType() : ProbeErrors.OTHER;
                String message = h.needsKey() ? h.error()
                        : reach.error() != null ? reach.error() : "no model given and none loaded";
                return new ProbeResult(false, type, message, started, null,
                        null, null, (System.nanoTime() - t0) / 1e9, null, null, null, null, null, null, null, null,
                        null);
            }
        }
        Duration left = r.totalTimeout().minusNanos(System.nanoTime() - t0);
        Duration firstLeft = r.firstTokenTimeout().minusNanos(System.nanoTime() - t0);
        if (left.isNegative() || left.isZero()) {
            left = Duration.ofMillis(1);
        }
        if (firstLeft.isNegative() || firstLeft.isZero()) {
            firstLeft = Duration.ofMillis(1);
        }
        HttpTransport.Request req = streamRequest(r, model, PromptFactory.prompt(r.promptTokens()));
        Measurement m = StreamingCall.run(req, connectTimeout, parser(), firstLeft, left, open);
        measured(m);
        return result(m, started, model, r);
    }

    /** What a client learns about its engine from a probe's answer (the OpenAI client: the version in system_fingerprint). */
    protected void measured(Measurement m) {
    }

    static ProbeResult result(Measurement m, Instant started, String model, ProbeRequest r) {
        synchronized (m) {
            long end = m.doneAt >= 0 ? m.doneAt : System.nanoTime();
            double e2e = (end - m.t0) / 1e9;
            Double toHeaders = m.headersAt >= 0 ? (m.headersAt - m.t0) / 1e9 : null;
            Double ttft = m.firstContentAt >= 0 ? (m.firstContentAt - m.t0) / 1e9 : null;
            Long out;
            Long in;
            String source;
            if (m.usageOutput != null && m.usageOutput > 0) {
                out = m.usageOutput;
                in = m.usageInput;
                source = TokenSource.USAGE.value();
            } else if (m.engineOutput != null) {
                out = m.engineOutput;
                in = m.engineInput;
                source = TokenSource.ENGINE.value();
            } else if (m.contentChunks > 0) {
                // Each streamed chunk carries about one token on the servers we know.
                out = (long) m.contentChunks;
                in = (long) r.promptTokens();
                source = TokenSource.ESTIMATE.value();
            } else {
                out = null;
                in = null;
                source = null;
            }
            boolean success = m.errorType == null && m.doneAt >= 0;
            String errorType = m.errorType;
            String errorMessage = m.errorMessage;
            if (success && m.contentChunks == 0) {
                // An answer without a single output token is no answer, however cleanly the stream ended.
                success = false;
                errorType = ProbeErrors.NO_OUTPUT;
                errorMessage = "the stream ended without an output token (no content or reasoning"
                        + (out != null ? "; the engine counted " + out + " output tokens" : "") + ")";
            }
            Double decode = null;
            if (success && ttft != null && out != null && out >= 2 && e2e > ttft) {
                double rate = (out - 1) / (e2e - ttft);
                decode = rate > 0 ? rate : null;
            }
            return new ProbeResult(success, errorType, errorMessage, started, model, toHeaders, ttft, e2e,
                    decode, out, in, source, m.cachedTokens, m.serverPromptSeconds, m.serverDecodeRate,
                    m.loadSeconds, m.gaps, m.responseModel, success ? m.serverTtftSeconds : null);
        }
    }

    /** A streaming chat body: {@code model}, one user message with {@code prompt}, {@code stream: true}. */
    protected static ObjectNode chatBody(String model, String prompt) {
        ObjectNode body = HttpTransport.JSON.createObjectNode();
        body.put("model", model);
        body.putArray("messages").addObject().put("role", "user").put("content", prompt);
        body.put("stream", true);
        return body;
    }

    /** POST {@code body} as JSON to {@code path}, asking for the stream format {@code accept}. */
    protected HttpTransport.Request streamRequest(String path, ObjectNode body, ProbeRequest r, String accept) {
        try {
            return HttpTransport.Request.postJson(uri(path), HttpTransport.JSON.writeValueAsBytes(body), accept, apiKey);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static Duration left(long endNanos) {
        long n = endNanos - System.nanoTime();
        return Duration.ofNanos(Math.max(n, 1_000_000L));
    }

    static Long longOrNull(JsonNode n) {
        return n != null && n.isNumber() ? n.asLong() : null;
    }

    static String describe(HttpTransport.JsonReply r) {
        if (r.error() != null) {
            return r.error();
        }
        String body = r.rawBody() == null ? "" : " " + HttpTransport.clip(r.rawBody());
        return "HTTP " + r.status() + body;
    }
}
