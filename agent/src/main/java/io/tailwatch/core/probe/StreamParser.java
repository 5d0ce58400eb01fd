package io.tailwatch.core.probe;

import java.nio.ByteBuffer;

/** Turns one API's stream bytes into measurement events. One instance per exchange. */
interface StreamParser {
    /** Bytes that arrived at {@code nanos} (System.nanoTime). */
    void bytes(ByteBuffer bytes, long nanos, Measurement m);

    /** The body ended normally at {@code nanos}. */
    void end(long nanos, Measurement m);
}
