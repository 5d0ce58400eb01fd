package io.tailwatch.tools.sim;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * A flavour's own wire in front of another one: its paths first, a fixed answer for a path when a test set one
 * ({@link #answer}), everything else to the wire behind it.
 */
abstract class FlavorWire<W extends FlavorWire<W>> implements EngineSimulator.Wire {
    protected final EngineSimulator sim;
    protected final EngineSimulator.Wire rest;
    private final SimReplies replies = new SimReplies();

    FlavorWire(EngineSimulator sim, EngineSimulator.Wire rest) {
        this.sim = sim;
        this.rest = rest;
    }

    @SuppressWarnings("unchecked")
    protected final W self() {
        return (W) this;
    }

    /** Answers {@code path} with this body from now on (null: its own answer again). */
    public W answer(String path, int status, String contentType, String body) {
        replies.set(path, status, contentType, body);
        return self();
    }

    @Override
    public final void handle(HttpExchange x) throws IOException {
        if (!replies.sendOverride(x) && !own(x)) {
            rest.handle(x);
        }
    }

    /** Answers the flavour's own paths; false for a path it leaves to the wire behind it. */
    abstract boolean own(HttpExchange x) throws IOException;
}
