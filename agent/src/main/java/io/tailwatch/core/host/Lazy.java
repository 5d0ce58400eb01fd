package io.tailwatch.core.host;

import java.io.IOException;
import java.util.concurrent.Callable;

/**
 * A native resource opened on first use. Opening may fail (a library missing on this OS version,
 * a call refused): the failure is remembered and reported as an IOException naming the resource
 * on every later use, with the original exception as its cause (so a caller that tells one kind of
 * failure from another, such as {@code IOReportGroupMissing}, sees the same cause every time), so the sampler that needs it fails on its own and its siblings keep running.
 * Loading is never retried in a tight loop; {@link #retryAfterFailures} bounds how often it is.
 */
public final class Lazy<T> {
    private final String what;
    private final Callable<T> opener;
    private final int retryAfterFailures;
    private T value;
    private String failure;
    /** What opening threw, kept so every later failure carries it (callers test the cause's type). */
    private Throwable failureCause;
    private int failuresSinceAttempt;

    private Lazy(String what, Callable<T> opener, int retryAfterFailures) {
        this.what = what;
        this.opener = opener;
        this.retryAfterFailures = retryAfterFailures;
    }

    /** Never retries after the first failure (a library that is absent stays absent). */
    public static <T> Lazy<T> of(String what, Callable<T> opener) {
        return new Lazy<>(what, opener, Integer.MAX_VALUE);
    }

    /** Retries opening after every {@code uses} failed uses. */
    public static <T> Lazy<T> retrying(String what, Callable<T> opener, int uses) {
        return new Lazy<>(what, opener, Math.max(1, uses));
    }

    public synchronized T get() throws IOException {
        if (value != null) {
            return value;
        }
        if (failure != null && failuresSinceAttempt++ < retryAfterFailures) {
            throw new IOException(failure, failureCause);
        }
        try {
            T v = opener.call();
            if (v == null) {
                throw new IOException("not available on this machine");
            }
            value = v;
            failure = null;
            failureCause = null;
            return v;
        } catch (Exception | LinkageError e) {
            failure = what + " unavailable: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            failureCause = e;
            failuresSinceAttempt = 0;
            throw new IOException(failure, e);
        }
    }

    /** The value, or null when it cannot be opened. */
    public T getOrNull() {
        try {
            return get();
        } catch (IOException e) {
            return null;
        }
    }

    /** The value if it was opened, without trying to open it. */
    public synchronized T ifOpened() {
        return value;
    }
}
