package io.tailwatch.core.http;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** The probe failure classes ({@code error.type}) and the mapping from transport exceptions to them. */
public final class ProbeErrors {
    public static final String CONNECT_REFUSED = "connect_refused";
    public static final String CONNECT_TIMEOUT = "connect_timeout";
    public static final String FIRST_TOKEN_TIMEOUT = "first_token_timeout";
    public static final String TOTAL_TIMEOUT = "total_timeout";
    public static final String STREAM_ERROR = "stream_error";
    public static final String MALFORMED = "malformed";
    public static final String CUT = "cut";
    public static final String OTHER = "_OTHER";
    /** An answer over one of the agent's bounds (bytes, entries); the engine is not down for it. */
    public static final String OVER_LIMIT = "over_limit";
    /** The stream ended properly but carried no output token (no content or reasoning at all). */
    public static final String NO_OUTPUT = "no_output";

    private ProbeErrors() {
    }

    public static String http(int status) {
        return "http_" + status;
    }

    /** Strips the wrappers CompletableFuture adds. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Classifies a failure that happened before response headers arrived. Connection refused and
     * connect timeouts have their own classes; an I/O error once connected means the server dropped
     * the connection (cut).
     */
    public static String beforeHeaders(Throwable t) {
        t = unwrap(t);
        if (t instanceof HttpExchange.ConnectTimeout) {
            return CONNECT_TIMEOUT;
        }
        if (t instanceof HttpExchange.DeadlineExceeded) {
            return FIRST_TOKEN_TIMEOUT;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof javax.net.ssl.SSLHandshakeException) {
                return OTHER; // e.g. an untrusted certificate: the message says which
            }
            if (c instanceof java.net.ProtocolException) {
                return MALFORMED; // not HTTP: e.g. an invalid status line
            }
            if (c instanceof ConnectException || c instanceof NoRouteToHostException
                    || c instanceof UnknownHostException || c instanceof UnresolvedAddressException) {
                return CONNECT_REFUSED;
            }
        }
        if (t instanceof IOException) {
            return CUT;
        }
        return OTHER;
    }

    /** A short, secret-free description of a throwable for logs and status. */
    public static String describe(Throwable t) {
        t = unwrap(t);
        String m = t.getMessage();
        if ((m == null || m.isBlank()) && t.getCause() != null && t.getCause().getMessage() != null) {
            m = t.getCause().getMessage();
        }
        if ((m == null || m.isBlank()) && t instanceof ConnectException) {
            m = "connection refused";
        }
        return t.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
    }
}
