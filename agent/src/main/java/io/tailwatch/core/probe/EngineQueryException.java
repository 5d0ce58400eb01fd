package io.tailwatch.core.probe;

/**
 * An engine could not answer a question about a model (not reachable, an HTTP error, or an answer
 * without the figures asked for). The message names the request, e.g. {@code POST http://.../api/show: HTTP 404}.
 */
public final class EngineQueryException extends Exception {
    private final boolean unsupported;

    public EngineQueryException(String message, boolean unsupported) {
        super(message);
        this.unsupported = unsupported;
    }

    /** True when the API has no such request at all (asking again, or another engine of the API, cannot help). */
    public boolean unsupported() {
        return unsupported;
    }
}
