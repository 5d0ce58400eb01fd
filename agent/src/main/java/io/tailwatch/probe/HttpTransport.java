package io.tailwatch.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The HTTP exchanges every engine client and signal source makes, on {@link HttpExchange}: one
 * connection per exchange, run on the caller's thread, bounded in time (connect timeout, then an
 * absolute deadline for the whole exchange) and in size ({@link #MAX_JSON_BYTES}). Small JSON and
 * text exchanges go through {@link #json} and {@link #get}; streams through {@link StreamingCall}.
 */
public final class HttpTransport {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HttpTransport.class);
    public static final ObjectMapper JSON = new ObjectMapper();
    /** Bound on a health or inventory body; real ones are a few KiB. */
    public static final int MAX_JSON_BYTES = 4 << 20;

    private HttpTransport() {
    }

    /**
     * A request: method, URL, headers (Host, User-Agent, Content-Length and Connection are added when
     * sent) and an optional body. The bearer token, when there is one, lives only in {@code headers},
     * which {@link #toString()} leaves out.
     */
    public record Request(String method, URI uri, Map<String, String> headers, byte[] body) {
        public static Request get(URI uri, String accept, String apiKey) {
            return new Request("GET", uri, headers(accept, null, apiKey), null);
        }

        public static Request postJson(URI uri, byte[] body, String accept, String apiKey) {
            return new Request("POST", uri, headers(accept, "application/json", apiKey), body);
        }

        private static Map<String, String> headers(String accept, String contentType, String apiKey) {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Accept", accept);
            if (contentType != null) {
                h.put("Content-Type", contentType);
            }
            if (apiKey != null) {
                h.put("Authorization", "Bearer " + apiKey);
            }
            return h;
        }

        /** Connects, sends and reads the response head before {@code deadlineNanos}. */
        public HttpExchange send(Duration connectTimeout, long deadlineNanos) throws IOException {
            HttpExchange x = prepare();
            start(x, connectTimeout, deadlineNanos);
            return x;
        }

        /** The exchange, not yet started (so that another thread can close it from the first step on). */
        public HttpExchange prepare() throws java.net.ProtocolException {
            return HttpExchange.prepare(uri, null);
        }

        public void start(HttpExchange x, Duration connectTimeout, long deadlineNanos) throws IOException {
            int connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
            x.start(method, headers, body, connectMillis, deadlineNanos);
        }

        @Override
        public String toString() {
            return method + " " + uri;
        }
    }

    /** Result of a small JSON exchange: a status with a parsed body, or a failure. */
    public record JsonReply(int status, JsonNode body, String rawBody, String error, String errorType) {
        public boolean ok() {
            return error == null && status / 100 == 2;
        }
    }

    /**
     * GET (body null) or POST a JSON body and parse the reply, all within {@code deadline}. Never
     * throws for network or server faults; they come back as {@code error}.
     */
    public static JsonReply json(URI uri, Object body, String apiKey, Duration connectTimeout, Duration deadline) {
        Request req;
        if (body == null) {
            req = Request.get(uri, "application/json", apiKey);
        } else {
            try {
                req = Request.postJson(uri, JSON.writeValueAsBytes(body), "application/json", apiKey);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException(e);
            }
        }
        Exchange x = exchange(req, connectTimeout, deadline);
        if (x.error() != null) {
            if (x.cause() != null) {
                LOG.debug("{} failed: {}", io.tailwatch.config.Redact.url(uri), io.tailwatch.logging.LogGuard.value(x.cause()));
            }
            return new JsonReply(0, null, null, x.error(), x.errorType());
        }
        String raw = new String(x.body(), StandardCharsets.UTF_8);
        JsonNode node = null;
        try {
            node = raw.isBlank() ? null : JSON.readTree(raw);
        } catch (java.io.IOException e) {
            if (x.status() / 100 == 2) {
                return new JsonReply(x.status(), null, raw, uri.getPath() + ": not JSON: " + clip(raw),
                        ProbeErrors.MALFORMED);
            }
        }
        return new JsonReply(x.status(), node, raw, null, null);
    }

    /** Result of a plain GET: status, content type and body text, or a failure. */
    public record TextReply(int status, String contentType, String body, String error, String errorType) {
        public boolean ok() {
            return error == null && status / 100 == 2;
        }
    }

    /**
     * GET {@code uri} asking for {@code accept}, with the body (UTF-8, at most {@link #MAX_JSON_BYTES}) as text,
     * all within {@code deadline}. Never throws for network or server faults; they come back as {@code error}
     * with a {@link ProbeErrors} class.
     */
    public static TextReply get(URI uri, String accept, String apiKey, Duration connectTimeout, Duration deadline) {
        Exchange x = exchange(Request.get(uri, accept, apiKey), connectTimeout, deadline);
        if (x.error() != null) {
            return new TextReply(0, null, null, x.error(), x.errorType());
        }
        String type = x.contentType() == null ? "" : x.contentType();
        return new TextReply(x.status(), type, new String(x.body(), StandardCharsets.UTF_8), null, null);
    }

    /**
     * One bounded exchange: status, content type and body, or why there is none (message,
     * {@link ProbeErrors} class and, for a failed exchange, its cause).
     */
    private record Exchange(int status, String contentType, byte[] body, String error, String errorType,
                            Throwable cause) {
        static Exchange failed(String error, String errorType, Throwable cause) {
            return new Exchange(0, null, null, error, errorType, cause);
        }
    }

    /** Sends {@code request} and reads the whole body (at most {@link #MAX_JSON_BYTES}) before {@code deadline}. */
    private static Exchange exchange(Request request, Duration connectTimeout, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        try (HttpExchange x = request.send(connectTimeout, end)) {
            byte[] body = x.readBody(MAX_JSON_BYTES, end);
            return new Exchange(x.status(), x.header("Content-Type"), body, null, null, null);
        } catch (HttpExchange.DeadlineExceeded e) {
            return Exchange.failed("no complete answer within " + deadline.toMillis() + " ms",
                    ProbeErrors.TOTAL_TIMEOUT, null);
        } catch (IOException | RuntimeException e) {
            return Exchange.failed(ProbeErrors.describe(e), ProbeErrors.beforeHeaders(e), e);
        }
    }

    static String clip(String s) {
        s = s.replaceAll("\\s+", " ").trim();
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
