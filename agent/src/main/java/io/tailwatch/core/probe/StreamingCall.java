package io.tailwatch.core.probe;

import io.tailwatch.core.http.HttpExchange;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Runs one streaming exchange under the probe's deadlines, on the calling thread, so no other thread
 * sits between the socket and the clock. The request is encoded before the clock starts; the time to
 * headers is when the status line came off the socket (before the head is parsed), and every piece of
 * the body is fed to the parser with the time its socket read returned (curl's trace takes the same
 * moments). Until the first content arrives the reads wait at most until the
 * first-token deadline, after that until the total deadline; nothing here blocks past {@code total}.
 */
final class StreamingCall {
    /** How long a short error body may take to explain a non-200 status. */
    private static final long ERROR_BODY_NANOS = 200_000_000L;
    private static final int MAX_ERROR_BODY = 4096;

    private StreamingCall() {
    }

    /** {@code inFlight} (may be null) holds the exchange while it runs, so that another thread can close it. */
    static Measurement run(HttpTransport.Request request, Duration connectTimeout, StreamParser parser,
                           Duration firstToken, Duration total, java.util.Set<HttpExchange> inFlight) {
        // The deadlines run from before the request is prepared (its bytes encoded); the measurement's
        // clock starts after that. A host name is looked up when the exchange starts, inside the deadline.
        long start = System.nanoTime();
        long firstDeadline = start + Math.min(firstToken.toNanos(), total.toNanos());
        long totalDeadline = start + total.toNanos();
        HttpExchange x;
        try {
            x = request.prepare();
        } catch (IOException | RuntimeException e) {
            Measurement m = new Measurement(System.nanoTime());
            m.fail(ProbeErrors.beforeHeaders(e), ProbeErrors.describe(e));
            return m;
        }
        long t0 = System.nanoTime();
        Measurement m = new Measurement(t0);
        if (inFlight != null) {
            inFlight.add(x);
        }
        try (x) {
            try {
                request.start(x, connectTimeout, firstDeadline);
            } catch (HttpExchange.DeadlineExceeded e) {
                m.fail(ProbeErrors.FIRST_TOKEN_TIMEOUT, "no response headers within " + millis(firstDeadline - start) + " ms");
                return m;
            } catch (IOException | RuntimeException e) {
                m.fail(ProbeErrors.beforeHeaders(e), ProbeErrors.describe(e));
                return m;
            }
            m.headers(x.responseAt(), x.status()); // when the status line arrived, not when the head was parsed
            if (x.status() != 200) {
                m.fail(ProbeErrors.http(x.status()), "HTTP " + x.status()
                        + (EngineHealth.refusesKey(x.status()) ? " (the engine needs an API key, or another one)" : ""));
                m.errorBody(errorBody(x, Math.min(totalDeadline, System.nanoTime() + ERROR_BODY_NANOS)));
                return m;
            }
            String encoding = x.header("Content-Encoding");
            if (encoding != null && !encoding.isBlank() && !encoding.strip().equalsIgnoreCase("identity")) {
                // The probe asks for no encoding; a compressed stream cannot be timed token by token.
                m.fail(ProbeErrors.MALFORMED, "response is Content-Encoding: "
                        + io.tailwatch.core.logging.LogGuard.value(encoding.strip()) + ", which the probe did not ask for");
                return m;
            }
            byte[] buf = new byte[8192];
            while (!m.isFinished()) {
                boolean beforeFirst = m.firstContentAt < 0;
                int n;
                try {
                    n = x.read(buf, beforeFirst ? firstDeadline : totalDeadline);
                } catch (HttpExchange.DeadlineExceeded e) {
                    if (beforeFirst) {
                        m.fail(ProbeErrors.FIRST_TOKEN_TIMEOUT, "no content within " + millis(firstDeadline - start) + " ms");
                    } else {
                        m.fail(ProbeErrors.TOTAL_TIMEOUT, "stream not complete within " + total.toMillis() + " ms");
                    }
                    break;
                }
                if (n < 0) {
                    parser.end(System.nanoTime(), m);
                    break;
                }
                // The time these bytes came off the socket: a later chunk of the same read arrived with it.
                parser.bytes(ByteBuffer.wrap(buf, 0, n), x.lastReadAt(), m);
            }
        } catch (java.net.ProtocolException e) {
            m.fail(ProbeErrors.MALFORMED, "malformed framing: " + ProbeErrors.describe(e));
        } catch (IOException e) {
            m.fail(ProbeErrors.CUT, "stream broke: " + ProbeErrors.describe(e));
        } catch (RuntimeException e) {
            m.fail(ProbeErrors.OTHER, ProbeErrors.describe(e));
        } finally {
            if (inFlight != null) {
                inFlight.remove(x);
            }
        }
        return m;
    }

    /** Up to 4 KiB of an error body, read until {@code deadline}; whatever came by then. */
    private static String errorBody(HttpExchange x, long deadline) {
        byte[] out = new byte[MAX_ERROR_BODY];
        int len = 0;
        try {
            while (len < out.length) {
                byte[] tmp = new byte[out.length - len];
                int n = x.read(tmp, deadline);
                if (n < 0) {
                    break;
                }
                System.arraycopy(tmp, 0, out, len, n);
                len += n;
            }
        } catch (IOException e) {
            // keep what arrived: the status already tells what went wrong
        }
        return new String(out, 0, len, StandardCharsets.UTF_8);
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000L;
    }
}
