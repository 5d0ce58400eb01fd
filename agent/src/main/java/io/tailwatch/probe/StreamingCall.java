package io.tailwatch.probe;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * Runs one streaming exchange under the probe's deadlines. The body is consumed push-style by a
 * subscriber on the HTTP client's thread, which timestamps every read as it arrives; the calling
 * thread only waits, first for the first token (or the end), then for the end, and cancels the
 * exchange when a deadline passes. Nothing here blocks past {@code total}.
 */
final class StreamingCall {
    private StreamingCall() {
    }

    static Measurement run(HttpClient client, HttpRequest request, StreamParser parser, Duration firstToken,
                           Duration total) {
        long t0 = System.nanoTime();
        Measurement m = new Measurement(t0);
        StreamSubscriber[] body = new StreamSubscriber[1];
        CompletableFuture<HttpResponse<Void>> f;
        try {
            f = client.sendAsync(request, info -> {
                m.headers(System.nanoTime(), info.statusCode());
                if (info.statusCode() != 200) {
                    m.fail(ProbeErrors.http(info.statusCode()), "HTTP " + info.statusCode());
                    return new ErrorBody(m);
                }
                StreamSubscriber s = new StreamSubscriber(parser, m);
                synchronized (body) {
                    body[0] = s;
                }
                return s;
            });
        } catch (RuntimeException e) {
            m.fail(ProbeErrors.OTHER, ProbeErrors.describe(e));
            return m;
        }
        f.whenComplete((r, e) -> {
            if (e != null) {
                m.fail(m.headersAt >= 0 ? ProbeErrors.CUT : ProbeErrors.beforeHeaders(e), ProbeErrors.describe(e));
            }
        });
        long firstDeadline = t0 + Math.min(firstToken.toNanos(), total.toNanos());
        long totalDeadline = t0 + total.toNanos();
        try {
            synchronized (m) {
                while (!m.finished && m.firstContentAt < 0 && waitUntil(m, firstDeadline)) {
                    // woken by progress; re-check
                }
                if (!m.finished && m.firstContentAt < 0) {
                    m.fail(ProbeErrors.FIRST_TOKEN_TIMEOUT, (m.headersAt < 0 ? "no response headers" : "no content")
                            + " within " + Math.min(firstToken.toMillis(), total.toMillis()) + " ms");
                }
                while (!m.finished && waitUntil(m, totalDeadline)) {
                    // woken by progress; re-check
                }
                if (!m.finished) {
                    m.fail(ProbeErrors.TOTAL_TIMEOUT, "stream not complete within " + total.toMillis() + " ms");
                }
                if (m.errorType != null && m.errorType.startsWith("http_")) {
                    long until = Math.min(totalDeadline, System.nanoTime() + 200_000_000L);
                    while (!m.errorBodyDone && waitUntil(m, until)) {
                        // give a short error body the chance to explain the status
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            m.fail(ProbeErrors.OTHER, "interrupted");
        }
        if (m.errorType != null) {
            // Failed or timed out: stop reading and drop the connection rather than drain it.
            StreamSubscriber s;
            synchronized (body) {
                s = body[0];
            }
            if (s != null) {
                s.cancel();
            }
            f.cancel(true);
        }
        return m;
    }

    /** Waits on {@code m} until notified or the deadline; false once the deadline has passed. */
    private static boolean waitUntil(Measurement m, long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        m.wait(left / 1_000_000L, (int) (left % 1_000_000L));
        return true;
    }

    /** Feeds the parser as bytes arrive, one read at a time (no unbounded buffering). */
    static final class StreamSubscriber implements HttpResponse.BodySubscriber<Void> {
        private final StreamParser parser;
        private final Measurement m;
        private final CompletableFuture<Void> result = new CompletableFuture<>();
        private Flow.Subscription subscription;
        private boolean cancelled;

        StreamSubscriber(StreamParser parser, Measurement m) {
            this.parser = parser;
            this.m = m;
        }

        synchronized void cancel() {
            cancelled = true;
            if (subscription != null) {
                subscription.cancel();
            }
            result.complete(null);
        }

        @Override
        public CompletableFuture<Void> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            synchronized (this) {
                subscription = s;
                if (cancelled) {
                    s.cancel();
                    return;
                }
            }
            s.request(1);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            long now = System.nanoTime();
            try {
                for (ByteBuffer bb : items) {
                    parser.bytes(bb, now, m);
                }
            } catch (RuntimeException e) {
                m.fail(ProbeErrors.OTHER, ProbeErrors.describe(e));
            }
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                if (m.errorType != null && m.isFinished()) {
                    subscription.cancel();
                    result.complete(null);
                    return;
                }
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            m.fail(ProbeErrors.CUT, "stream broke: " + ProbeErrors.describe(t));
            result.complete(null);
        }

        @Override
        public void onComplete() {
            try {
                parser.end(System.nanoTime(), m);
            } catch (RuntimeException e) {
                m.fail(ProbeErrors.OTHER, ProbeErrors.describe(e));
            }
            result.complete(null);
        }
    }

    /** Reads up to 4 KiB of an error body for the message, then lets the connection go. */
    static final class ErrorBody implements HttpResponse.BodySubscriber<Void> {
        private static final int MAX = 4096;
        private final Measurement m;
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final CompletableFuture<Void> result = new CompletableFuture<>();
        private Flow.Subscription subscription;

        ErrorBody(Measurement m) {
            this.m = m;
        }

        @Override
        public CompletableFuture<Void> getBody() {
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
                int n = Math.min(bb.remaining(), MAX - out.size());
                byte[] tmp = new byte[n];
                bb.get(tmp);
                out.write(tmp, 0, n);
            }
            if (out.size() >= MAX) {
                subscription.cancel();
                finish();
                return;
            }
            subscription.request(1);
        }

        @Override
        public void onError(Throwable t) {
            finish();
        }

        @Override
        public void onComplete() {
            finish();
        }

        private void finish() {
            m.errorBody(new String(out.toByteArray(), StandardCharsets.UTF_8));
            result.complete(null);
        }
    }
}
