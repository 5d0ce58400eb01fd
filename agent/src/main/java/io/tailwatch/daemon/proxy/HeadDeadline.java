package io.tailwatch.daemon.proxy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
    private final long millis;
    /** Connections waiting for a request head, by their network end point, with the deadline's task. */
    private final Map<EndPoint, Scheduler.Task> waiting = new ConcurrentHashMap<>();

    HeadDeadline(Scheduler scheduler, long millis) {
        this.scheduler = scheduler;
        this.millis = millis;
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
        Scheduler.Task task = waiting.remove(network(connection.getEndPoint()));
        if (task != null) {
            task.cancel();
        }
    }

    /** A request's head has arrived on {@code endPoint}: its connection is no longer on the head's deadline. */
    void begun(EndPoint endPoint) {
        Scheduler.Task task = waiting.remove(network(endPoint));
        if (task != null) {
            task.cancel();
        }
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
        java.util.concurrent.atomic.AtomicReference<Scheduler.Task> self = new java.util.concurrent.atomic.AtomicReference<>();
        Runnable expire = () -> {
            Scheduler.Task me = self.get();
            if (me != null && waiting.remove(ep, me)) {
                ep.close();
            }
        };
        Scheduler.Task task = scheduler.schedule(expire, millis, TimeUnit.MILLISECONDS);
        self.set(task);
        Scheduler.Task before = waiting.put(ep, task);
        if (before != null) {
            before.cancel();
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
