package io.tailwatch.daemon.signals;

import io.tailwatch.core.http.ProbeErrors;

/**
 * A classified failure of one signal source. {@code errorType} is one of connect_refused,
 * connect_timeout, timeout, cut, http_&lt;status&gt;, malformed (the body is not what the source
 * reads), missing_field (the body is fine but lacks the figures) or _OTHER.
 */
public final class SignalFailure extends Exception {
    public static final String TIMEOUT = "timeout";
    public static final String MALFORMED = ProbeErrors.MALFORMED;
    public static final String MISSING_FIELD = "missing_field";

    private final String errorType;
    private final String endpoint;

    public SignalFailure(String errorType, String endpoint, String message) {
        super(endpoint + ": " + message);
        this.errorType = errorType;
        this.endpoint = endpoint;
    }

    public String errorType() {
        return errorType;
    }

    public String endpoint() {
        return endpoint;
    }

    /** Maps the transport's probe classes onto the signal classes (every deadline is one "timeout"). */
    static String fromTransport(String probeErrorType) {
        if (probeErrorType == null) {
            return ProbeErrors.OTHER;
        }
        return switch (probeErrorType) {
            case ProbeErrors.FIRST_TOKEN_TIMEOUT, ProbeErrors.TOTAL_TIMEOUT -> TIMEOUT;
            default -> probeErrorType;
        };
    }
}
