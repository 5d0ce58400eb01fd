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
        CompletableFuture<HttpResponse<byte[]>> f = client(connectTimeout)
                .sendAsync(b.build(), info -> new LimitedBody(MAX_JSON_BYTES));
        HttpResponse<byte[]> r;
        try {
            r = f.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            return new JsonReply(0, null, null, "no complete answer within " + deadline.toMillis() + " ms",
                    ProbeErrors.TOTAL_TIMEOUT);
        } catch (InterruptedException e) {
            f.cancel(true);
            Thread.currentThread().interrupt();
            return new JsonReply(0, null, null, "interrupted", ProbeErrors.OTHER);
        } catch (ExecutionException e) {
            LOG.debug("{} failed", uri, e.getCause());
            return new JsonReply(0, null, null, ProbeErrors.describe(e), ProbeErrors.beforeHeaders(e));
        }
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
