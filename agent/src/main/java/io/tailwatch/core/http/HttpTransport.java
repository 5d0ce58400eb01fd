package io.tailwatch.core.http;

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
    /**
     * Bound on a JSON body streamed into a bounded tree ({@link BoundedJson}): the bytes pass through,
     * only the tree's bounded part is held. Real health and inventory bodies are a few KiB; 20,000
     * served models about 2 MiB.
     */
    public static final int MAX_JSON_BYTES = 4 << 20;
    /**
     * Bound on a body held whole as text ({@link #get}): what is held is at most this many bytes and
     * their characters, so eight reads at once stay under 4 MiB of the 24 MiB heap.
     */
    public static final int MAX_TEXT_BYTES = 256 << 10;

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
            return HttpExchange.prepare(uri, null, method, headers, body);
        }

        public void start(HttpExchange x, Duration connectTimeout, long deadlineNanos) throws IOException {
            int connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()));
            x.start(connectMillis, deadlineNanos);
        }

        @Override
        public String toString() {
            return method + " " + uri;
        }
    }

    /**
     * Result of a JSON exchange: a status with a parsed body, or a failure. {@code limit} is non-null
     * when the answer was over a bound ({@link ProbeErrors#OVER_LIMIT}: too many entries, or more
     * bytes than {@link #MAX_JSON_BYTES}) and says which, with the numbers; {@code body} then holds the
     * bounded part that was read. {@code rawBody} is kept only for error answers and non-JSON bodies
     * (at most {@link #MAX_ERROR_BODY} bytes).
     */
    public record JsonReply(int status, JsonNode body, String rawBody, String error, String errorType,
                            BoundedJson.Result parsed, String limit) {
        public JsonReply(int status, JsonNode body, String rawBody, String error, String errorType) {
            this(status, body, rawBody, error, errorType, null, null);
        }

        public boolean ok() {
            return error == null && status / 100 == 2;
        }

        /** Entries of the array at {@code pointer}, counting those left out over the bound. */
        public long total(String pointer) {
            if (parsed != null) {
                return parsed.total(pointer);
            }
            JsonNode a = body == null ? null : body.at(pointer);
            return a != null && a.isArray() ? a.size() : 0;
        }

        /** The whole body was read (it may still have had arrays cut to their bound). */
        public boolean complete() {
            return parsed == null || parsed.complete();
        }
    }

    /** Bytes of an error answer kept for the message. */
    static final int MAX_ERROR_BODY = 4096;

    /**
     * GET (body null) or POST a JSON body and parse the reply by streaming it into a bounded tree
     * ({@link BoundedJson}), all within {@code deadline}. Never throws for network or server faults;
     * they come back as {@code error}. A 2xx answer over a bound is not an error: it comes back
     * with {@code limit} set and the part that fits.
     */
    public static JsonReply json(URI uri, Object body, String apiKey, Duration connectTimeout, Duration deadline) {
        return json(uri, body, apiKey, connectTimeout, deadline, BoundedJson.Limits.DEFAULT);
    }

    /** {@link #json(URI, Object, String, Duration, Duration)} keeping at most {@code limits} of the tree. */
    public static JsonReply json(URI uri, Object body, String apiKey, Duration connectTimeout, Duration deadline,
                                 BoundedJson.Limits limits) {
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
        long end = System.nanoTime() + deadline.toNanos();
        try (HttpExchange x = req.send(connectTimeout, end)) {
            int status = x.status();
            if (status / 100 != 2) {
                String raw = new String(readPrefix(x, end), StandardCharsets.UTF_8);
                JsonNode node = null;
                try {
                    node = raw.isBlank() ? null : JSON.readTree(raw);
                } catch (IOException e) {
                    // an error page, not JSON
                }
                return new JsonReply(status, node, raw, null, null);
            }
            BodyStream in = new BodyStream(x, MAX_JSON_BYTES, end);
            try {
                BoundedJson.Result r = BoundedJson.read(in, limits);
                return new JsonReply(status, r.root(), null, null, null, r, r.describeCuts(limits));
            } catch (BoundedJson.Partial p) {
                if (p.getCause() instanceof BodyStream.TooLarge big) {
                    BoundedJson.Result r = p.partial();
                    String cuts = r.describeCuts(limits);
                    String limit = "body larger than " + big.limit() + " bytes; read stopped there"
                            + (cuts == null ? "" : "; " + cuts);
                    return new JsonReply(status, r.root(), null, null, null, r, limit);
                }
                throw (IOException) p.getCause();
            } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
                return new JsonReply(status, null, null, uri.getPath() + ": over a bound: " + clip(e.getOriginalMessage()),
                        ProbeErrors.OVER_LIMIT);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                return new JsonReply(status, null, null, uri.getPath() + ": not JSON: " + clip(e.getOriginalMessage()),
                        ProbeErrors.MALFORMED);
            }
        } catch (HttpExchange.DeadlineExceeded e) {
            return new JsonReply(0, null, null, "no complete answer within " + deadline.toMillis() + " ms",
                    ProbeErrors.TOTAL_TIMEOUT);
        } catch (IOException | RuntimeException e) {
            LOG.debug("{} failed: {}", io.tailwatch.core.logging.Redact.url(uri), io.tailwatch.core.logging.LogGuard.value(e));
            return new JsonReply(0, null, null, ProbeErrors.describe(e), ProbeErrors.beforeHeaders(e));
        }
    }

    /** The start of an error answer's body as text (at most {@link #MAX_ERROR_BODY} bytes). */
    public static String errorBody(HttpExchange x, long deadlineNanos) throws IOException {
        return new String(readPrefix(x, deadlineNanos), StandardCharsets.UTF_8);
    }

    /** At most {@link #MAX_ERROR_BODY} bytes of the body; the rest is left unread (the connection is closed). */
    private static byte[] readPrefix(HttpExchange x, long end) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] tmp = new byte[1024];
        int n;
        while (out.size() < MAX_ERROR_BODY && (n = x.read(tmp, end)) >= 0) {
            out.write(tmp, 0, Math.min(n, MAX_ERROR_BODY - out.size()));
        }
        return out.toByteArray();
    }

    /** Result of a plain GET: status, content type and body text, or a failure. */
    public record TextReply(int status, String contentType, String body, String error, String errorType) {
        public boolean ok() {
            return error == null && status / 100 == 2;
        }
    }

    /**
     * GET {@code uri} asking for {@code accept}, with the body (UTF-8, at most {@link #MAX_TEXT_BYTES}) as text,
     * all within {@code deadline}. Never throws for network or server faults; they come back as {@code error}
     * with a {@link ProbeErrors} class; a longer body is {@link ProbeErrors#OVER_LIMIT} with its status.
     */
    public static TextReply get(URI uri, String accept, String apiKey, Duration connectTimeout, Duration deadline) {
        Exchange x = exchange(Request.get(uri, accept, apiKey), connectTimeout, deadline);
        if (x.error() != null) {
            return new TextReply(x.status(), null, null, x.error(), x.errorType());
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

        Exchange over(URI uri, BodyStream.TooLarge e) {
            return new Exchange(status, null, null, uri.getPath() + ": " + e.getMessage() + "; read stopped there",
                    ProbeErrors.OVER_LIMIT, e);
        }
    }

    /** Sends {@code request} and reads the whole body (at most {@link #MAX_TEXT_BYTES}) before {@code deadline}. */
    private static Exchange exchange(Request request, Duration connectTimeout, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        try (HttpExchange x = request.send(connectTimeout, end)) {
            try {
                byte[] body = x.readBody(MAX_TEXT_BYTES, end);
                return new Exchange(x.status(), x.header("Content-Type"), body, null, null, null);
            } catch (BodyStream.TooLarge e) {
                return new Exchange(x.status(), null, null, null, null, null).over(request.uri(), e);
            }
        } catch (HttpExchange.DeadlineExceeded e) {
            return Exchange.failed("no complete answer within " + deadline.toMillis() + " ms",
                    ProbeErrors.TOTAL_TIMEOUT, null);
        } catch (IOException | RuntimeException e) {
            return Exchange.failed(ProbeErrors.describe(e), ProbeErrors.beforeHeaders(e), e);
        }
    }

    public static String clip(String s) {
        if (s == null) {
            return "";
        }
        s = s.replaceAll("\\s+", " ").trim();
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }
}
