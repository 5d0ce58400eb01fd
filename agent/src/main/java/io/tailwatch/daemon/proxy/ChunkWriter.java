package io.tailwatch.daemon.proxy;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.IOException;
import org.eclipse.jetty.client.api.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Writes the engine's answer to the client without ever blocking, one chunk at a time: each chunk is
 * written and flushed (Jetty would otherwise gather a stream's small writes and hold its tokens back),
 * then read by the exchange's tap, and only then is the engine side asked for the next one (its
 * callback). A client that reads slowly leaves the chunk pending and the engine connection unread
 * (back-pressure) without holding a thread; the container calls {@link #onWritePossible} when the
 * client has taken the bytes. A write that fails (the client left) fails the chunk's callback, which
 * aborts the request to the engine at once.
 *
 * <p>The container's call and the proxy's own (a new chunk) may come from two threads; the state is
 * guarded by this object. The chunk's callback is completed last and outside the lock: the next chunk,
 * which may be delivered within that call, finds the writer idle.
 */
final class ChunkWriter implements WriteListener {
    private enum State { IDLE, DATA, WRITTEN, FLUSHED }

    private final ServletOutputStream out;
    private final ProxyMeter.Exchange exchange;
    private final Response engineResponse;
    private State state = State.IDLE;
    private byte[] buffer;
    private int offset;
    private int length;
    private long arrived;
    private Callback callback;

    ChunkWriter(ServletOutputStream out, ProxyMeter.Exchange exchange, Response engineResponse) {
        this.out = out;
        this.exchange = exchange;
        this.engineResponse = engineResponse;
    }

    /** The next chunk, which arrived at {@code nanos}; {@code callback} is completed once it is written. */
    synchronized void offer(byte[] b, int off, int len, long nanos, Callback done) {
        if (state != State.IDLE) {
            throw new IllegalStateException("a chunk is offered while another is pending");
        }
        buffer = b;
        offset = off;
        length = len;
        arrived = nanos;
        callback = done;
        state = State.DATA;
    }

    @Override
    public void onWritePossible() throws IOException {
        Callback done = null;
        synchronized (this) {
            while (state != State.IDLE && out.isReady()) {
                switch (state) {
                    case DATA -> {
                        out.write(buffer, offset, length);
                        state = State.WRITTEN;
                    }
                    case WRITTEN -> {
                        out.flush();
                        state = State.FLUSHED;
                    }
                    default -> {
                        tap(buffer, offset, length, arrived);
                        done = callback;
                        buffer = null;
                        callback = null;
                        state = State.IDLE;
                    }
                }
            }
        }
        if (done != null) {
            done.succeeded();
        }
    }

    private void tap(byte[] b, int off, int len, long nanos) {
        if (exchange != null && exchange.tap != null) {
            try {
                exchange.tap.bytes(b, off, len, nanos);
            } catch (RuntimeException e) {
                // Metering never stands in the way of the bytes.
            }
        }
    }

    @Override
    public void onError(Throwable failure) {
        fail(failure);
    }

    /** The client side failed: the pending chunk's callback fails (aborting the engine request), or the answer is aborted. */
    void fail(Throwable failure) {
        Callback pending;
        synchronized (this) {
            pending = callback;
            callback = null;
            buffer = null;
            state = State.IDLE;
        }
        if (exchange != null) {
            exchange.clientGone = true;
        }
        if (pending != null) {
            pending.failed(failure);
        } else {
            engineResponse.abort(failure);
        }
    }
}
