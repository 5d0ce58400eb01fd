package io.tailwatch.core.probe;

import io.tailwatch.core.http.HttpTransport;
import java.util.ArrayList;
import java.util.List;

/**
 * What one streaming exchange yielded so far, written as bytes arrive (timestamps are taken on
 * arrival). Every access holds the monitor, so a status reader on another thread sees a
 * consistent picture.
 */
final class Measurement {
    static final int MAX_GAPS = 10_000;

    final long t0;
    long headersAt = -1;
    int status;
    long firstContentAt = -1;
    long lastContentAt = -1;
    long doneAt = -1;
    boolean finished;
    String errorType;
    String errorMessage;
    int contentChunks;
    long contentChars;
    final List<Double> gaps = new ArrayList<>();
    Long usageInput;
    Long usageOutput;
    Long cachedTokens;
    Long engineInput;
    Long engineOutput;
    Double serverPromptSeconds;
    Double serverDecodeRate;
    Double loadSeconds;
    /** The engine's own time to first token (LM Studio's stats.time_to_first_token_seconds), seconds. */
    Double serverTtftSeconds;
    String responseModel;
    /** The answer's system_fingerprint (mlx_lm: its mlx-lm and mlx versions, platform and GPU), at most 200 chars. */
    String fingerprint;

    /** False for a tap on traffic passing through: no list of gaps is kept (its state stays a few fields). */
    private final boolean keepGaps;

    Measurement(long t0) {
        this(t0, true);
    }

    Measurement(long t0, boolean keepGaps) {
        this.t0 = t0;
        this.keepGaps = keepGaps;
    }

    synchronized void headers(long nanos, int statusCode) {
        headersAt = nanos;
        status = statusCode;
    }

    /** A chunk carrying {@code chars} characters of content or reasoning arrived at {@code nanos}. */
    synchronized void content(long nanos, int chars) {
        if (finished) {
            return;
        }
        if (firstContentAt < 0) {
            firstContentAt = nanos;
        } else if (keepGaps && gaps.size() < MAX_GAPS) {
            gaps.add((nanos - lastContentAt) / 1e9);
        }
        lastContentAt = nanos;
        contentChunks++;
        contentChars += chars;
    }

    /** The stream's own end marker ([DONE], done:true) arrived. */
    synchronized void done(long nanos) {
        if (finished) {
            return;
        }
        doneAt = nanos;
        finished = true;
    }

    /** The first failure wins; later ones (e.g. the cut that follows a cancel) are ignored. */
    synchronized void fail(String type, String message) {
        if (finished) {
            return;
        }
        errorType = type;
        errorMessage = message;
        finished = true;
    }

    synchronized void errorBody(String text) {
        if (text != null && !text.isBlank() && errorMessage != null) {
            errorMessage = errorMessage + ": " + HttpTransport.clip(text);
        }
    }

    synchronized boolean isFinished() {
        return finished;
    }
}
