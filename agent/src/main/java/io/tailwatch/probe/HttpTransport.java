package io.tailwatch.probe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Flow;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The JDK HTTP client shared by every engine client: HTTP/1.1 with connection reuse, one selector
 * thread, and at most two daemon threads for its callbacks. Clients are kept per connect
 * timeout (the only per-client setting), so a handful of configured values means a handful of
 * clients. Small JSON exchanges go through {@link #json}, which bounds both time and body size.
 */
public final class HttpTransport {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(HttpTransport.class);
    public static final ObjectMapper JSON = new ObjectMapper();
    /** Bound on a health or inventory body; real ones are a few KiB. */
    public static final int MAX_JSON_BYTES = 4 << 20;

    // The client's callbacks are short and non-blocking: two threads suffice for every engine; when
    // both are busy the selector thread runs the callback itself. Idle threads go after 10 s.
    private static final ExecutorService EXECUTOR = new ThreadPoolExecutor(0, 2, 10, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "tailwatch-http");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.CallerRunsPolicy());
    private static final Map<Duration, HttpClient> CLIENTS = new ConcurrentHashMap<>();

    private HttpTransport() {
    }

    public static HttpClient client(Duration connectTimeout) {
        return CLIENTS.computeIfAbsent(connectTimeout, d -> HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(d)
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(EXECUTOR)
                .build());
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
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(deadline).header("Accept", "application/json");
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        try {
            if (body == null) {
                b.GET();
            } else {
                b.header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
        Exchange x = exchange(b.build(), connectTimeout, deadline);
        if (x.response() == null) {
            if (x.cause() != null) {
                LOG.debug("{} failed", uri, x.cause());
            }
            return new JsonReply(0, null, null, x.error(), x.errorType());
        }
        HttpResponse<byte[]> r = x.response();
        String raw = new String(r.body(), StandardCharsets.UTF_8);
        JsonNode node = null;
        try {
            node = raw.isBlank() ? null : JSON.readTree(raw);
        } catch (java.io.IOException e) {
            if (r.statusCode() / 100 == 2) {
                return new JsonReply(r.statusCode(), null, raw, uri.getPath() + ": not JSON: " + clip(raw),
                        ProbeErrors.MALFORMED);
            }
        }
        return new JsonReply(r.statusCode(), node, raw, null, null);
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
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(deadline).header("Accept", accept).GET();
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        Exchange x = exchange(b.build(), connectTimeout, deadline);
        if (x.response() == null) {
            return new TextReply(0, null, null, x.error(), x.errorType());
        }
        HttpResponse<byte[]> r = x.response();
        String type = r.headers().firstValue("Content-Type").orElse("");
        return new TextReply(r.statusCode(), type, new String(r.body(), StandardCharsets.UTF_8), null, null);
    }

    /**
     * One bounded exchange: the response, or why there is none (message, {@link ProbeErrors} class
     * and, for a failed exchange, its cause).
     */
    private record Exchange(HttpResponse<byte[]> response, String error, String errorType, Throwable cause) {
        static Exchange failed(String error, String errorType, Throwable cause) {
            return new Exchange(null, error, errorType, cause);
        }
    }

    /** Sends {@code request} and waits for the whole body (at most {@link #MAX_JSON_BYTES}) until {@code deadline}. */
    private static Exchange exchange(HttpRequest request, Duration connectTimeout, Duration deadline) {
        CompletableFuture<HttpResponse<byte[]>> f = client(connectTimeout)
                .sendAsync(request, info -> new LimitedBody(MAX_JSON_BYTES));
        try {
            return new Exchange(f.get(deadline.toNanos(), TimeUnit.NANOSECONDS), null, null, null);
        } catch (TimeoutException e) {
            f.cancel(true);
            return Exchange.failed("no complete answer within " + deadline.toMillis() + " ms",
                    ProbeErrors.TOTAL_TIMEOUT, null);
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            return Exchange.failed("interrupted", ProbeErrors.OTHER, null);
        } catch (ExecutionException e) {
            return Exchange.failed(ProbeErrors.describe(e), ProbeErrors.beforeHeaders(e), e.getCause());
        }
    }

    static String clip(String s) {
        s = s.replaceAll("\\s+", " ").trim();
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    /** Collects a body up to a bound; beyond it the exchange fails instead of growing the heap. */
    static final class LimitedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final int max;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        LimitedBody(int max) {
            this.max = max;
        }

        @Override
        public CompletableFuture<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer bb : items) {
                if (out.size() + bb.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new java.io.IOException("body larger than " + max + " bytes"));
                    return;
                }
                byte[] tmp = new byte[bb.remaining()];
                bb.get(tmp);
                out.write(tmp, 0, tmp.length);
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(out.toByteArray());
        }
    }
}
