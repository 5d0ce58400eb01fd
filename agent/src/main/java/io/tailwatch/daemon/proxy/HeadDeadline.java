package io.tailwatch.daemon.proxy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * A deadline for what comes before a request: the TLS handshake and the request's head, from the moment the
 * connection is accepted, and the next head after each answer on a kept-alive connection. The idle timeout
 * cannot bound these: it restarts with every byte, so a client that sends a head a byte at a time (or three
 * bytes of a ClientHello and then nothing) would hold one of the listener's connections for as long as it likes,
 * and 64 such clients would hold all of them. A connection whose request has not begun when its deadline comes is
 * closed. Once a request is being handled the idle timeout applies again, so a long stream is never cut by this.
 */
final class HeadDeadline implements Connection.Listener {
    /**
     * How long a head (and a handshake) may take, and how long a kept-alive connection may wait for its next
     * request: a client sends a head in one write, and a handshake takes round trips of milliseconds.
     */
    static final long MILLIS = 5_000;

    private final Scheduler scheduler;
    private final long nanos;
    private final long sweepMillis;
    /**
     * Connections waiting for a request head, by their network end point, with their deadline (System.nanoTime).
     * A deadline is a number in this map, not a task: a request's head and its answer then cost no scheduler
     * operation (a task's cancel and a new one's schedule each woke the scheduler's thread, twice a request).
     */
    private final Map<EndPoint, Long> waiting = new ConcurrentHashMap<>();
    private final AtomicBoolean armed = new AtomicBoolean();

    HeadDeadline(Scheduler scheduler, long millis) {
        this.scheduler = scheduler;
        this.nanos = TimeUnit.MILLISECONDS.toNanos(millis);
        // Checked five times per deadline: a connection is closed at most a fifth of the deadline after it.
        this.sweepMillis = Math.max(20, millis / 5);
    }

    @Override
    public void onOpened(Connection connection) {
        EndPoint ep = connection.getEndPoint();
        if (!(ep instanceof EndPoint.Wrapper) && !waiting.containsKey(ep)) {
            // The first connection on a network end point (plain HTTP, or the TLS layer): the deadline starts.
            arm(ep);
        }
    }

    @Override
    public void onClosed(Connection connection) {
        waiting.remove(network(connection.getEndPoint()));
    }

    /** A request's head has arrived on {@code endPoint}: its connection is no longer on the head's deadline. */
    void begun(EndPoint endPoint) {
        waiting.remove(network(endPoint));
    }

    /** The answer is done: the next head on this connection has its own deadline. */
    void answered(EndPoint endPoint) {
        EndPoint ep = network(endPoint);
        if (ep.isOpen()) {
            arm(ep);
        }
    }

    /** Connections that wait for a head now (bounded by the listener's connection limit). */
    int waiting() {
        return waiting.size();
    }

    private void arm(EndPoint ep) {
        waiting.put(ep, System.nanoTime() + nanos);
        sweepLater();
    }

    /** One sweep is scheduled while any connection waits for a head; none when none does. */
    private void sweepLater() {
        if (armed.compareAndSet(false, true)) {
            scheduler.schedule(this::sweep, sweepMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void sweep() {
        try {
            long now = System.nanoTime();
            waiting.forEach((ep, deadline) -> {
                if (now - deadline >= 0 && waiting.remove(ep, deadline)) {
                    ep.close();
                }
            });
        } finally {
            armed.set(false);
            if (!waiting.isEmpty()) {
                sweepLater();
            }
        }
    }

    static EndPoint network(EndPoint ep) {
        EndPoint e = ep;
        while (e instanceof EndPoint.Wrapper w && w.unwrap() != e) {
            e = w.unwrap();
        }
        return e;
    }
}
