package io.tailwatch.tools.history;

/** The local history could not be read or written; the message says why and what to do. */
public final class HistoryException extends Exception {
    public HistoryException(String message, Throwable cause) {
        super(message, cause);
    }
}
