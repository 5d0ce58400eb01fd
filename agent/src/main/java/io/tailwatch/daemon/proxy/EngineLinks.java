package io.tailwatch.daemon.proxy;

import io.tailwatch.core.http.HttpExchange;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Iterator;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * The proxy's connections to its engine, kept open between requests. A connection is used by one request at a time,
 * on that request's thread, with blocking reads and writes: a chunk goes from the engine's socket to the client's
 * without waking another thread. A kept connection carries the next request only after it has rested
 * ({@code connection_rest}: llama.cpp's server closes kept connections without saying so) and only if the engine has
 * not closed it meanwhile (checked without waiting before its use, for plain connections that rested or waited a
 * second or more). At most {@code max} are
 * kept, none longer than the idle timeout. Each holds two buffers of {@link #BUFFER_BYTES}: what is read from the
 * engine, and what is written to it.
 */
final class EngineLinks implements AutoCloseable {
    static final int BUFFER_BYTES = EngineProxy.BUFFER_BYTES;
    /** How long after it was put back a kept connection is used without a check, when the engine needs no rest. */
    static final long TRUST_NANOS = 1_000_000_000L;

    /** One connection to the engine. */
    static final class Link {
        final String destination;
        /** The TCP socket (under the TLS one, for https). */
        final Socket raw;
        /**
         * The TCP channel, for the check before a kept connection's use: nothing to read means open. Under TLS a
         * record the engine sent meanwhile (a close_notify, a session ticket) also counts as not open, and the
         * connection is dropped: a new one costs a handshake, a dead one a failed request.
         */
        private final SocketChannel channel;
        final InputStream in;
        final OutputStream out;
        /** The read buffer: the engine's answer (and the client's body on its way to the engine). */
        final byte[] buffer = new byte[BUFFER_BYTES];
        /** Earliest System.nanoTime at which a kept connection may carry a request; when it was put back. */
        private long restedAt;
        private long keptAt;
        /** Closed and no longer counted among the open ones. */
        private boolean gone;
        /** Checked before its next use however recently it was put back (its last answer had no body). */
        boolean checkNext;

        private Link(String destination, Socket raw, SocketChannel channel, Socket io) throws IOException {
            this.destination = destination;
            this.raw = raw;
            this.channel = channel;
            this.in = io.getInputStream();
            this.out = new BufferedOutputStream(io.getOutputStream(), BUFFER_BYTES);
        }

        /** Whether the engine has left this kept connection open, with nothing unasked-for on it; checked without waiting. */
        private boolean open() {
            if (raw.isClosed()) {
                return false;
            }
            try {
                channel.configureBlocking(false);
                int n = channel.read(ByteBuffer.allocate(1));
                channel.configureBlocking(true);
                return n == 0;
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        /** Closes the connection; a thread blocked on it gets an exception at once. */
        void close() {
            try {
                raw.close();
            } catch (IOException e) {
                // Closed either way.
            }
        }
    }

    private final int max;
    private final long idleNanos;
    /** Kept connections, the most recently put back last. */
    private final ArrayDeque<Link> kept = new ArrayDeque<>();
    /** Connections open now, kept or carrying a request: at most {@code max}, resting ones closed first to stay so. */
    private int open;
    private boolean closed;

    EngineLinks(int max, long idleMillis) {
        this.max = max;
        this.idleNanos = idleMillis * 1_000_000L;
    }

    /** A kept connection to {@code u} that has rested and is still open, or a new one. */
    Link acquire(MeteringProxyHandler.Upstream u) throws IOException {
        String destination = u.name();
        long now = System.nanoTime();
        while (true) {
            Link found = null;
            synchronized (this) {
                if (closed) {
                    throw new java.net.SocketException("the proxy is stopping");
                }
                Iterator<Link> it = kept.descendingIterator();
                while (it.hasNext()) {
                    Link l = it.next();
                    if (l.destination.equals(destination) && now - l.restedAt >= 0) {
                        it.remove();
                        found = l;
                        break;
                    }
                }
            }
            if (found == null) {
                return connectCounted(u, destination);
            }
            // A connection put back within the last second, to an engine that keeps its connections (no rest), is
            // taken as it is: the check costs several system calls on the way to the first token, and an engine's
            // own keep-alive timeout is seconds (uvicorn 5 s, llama.cpp 5 s, Go's much longer). One that has rested
            // or waited longer is checked: llama-server closes without saying so, and any engine closes in time.
            boolean fresh = u.connectionRestMillis() == 0 && now - found.keptAt < TRUST_NANOS && !found.checkNext;
            if (fresh || found.open()) {
                return found;
            }
            discard(found);
        }
    }

    /** A new connection, counted among the open ones (the oldest kept one is closed first when they are at the bound). */
    private Link connectCounted(MeteringProxyHandler.Upstream u, String destination) throws IOException {
        Link evicted = null;
        synchronized (this) {
            if (open >= max && !kept.isEmpty()) {
                evicted = kept.pollFirst();
                evicted.gone = true;
                open--;
            }
            open++;
        }
        if (evicted != null) {
            evicted.close();
        }
        try {
            return connect(u, destination);
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                open--;
            }
            throw e;
        }
    }

    /** Closes a connection that is not put back (it failed, or its answer ended with it). */
    void discard(Link l) {
        synchronized (this) {
            if (!l.gone) {
                l.gone = true;
                open--;
            }
        }
        l.close();
    }

    /** Connections open now, kept or in use. */
    synchronized int open() {
        return open;
    }

    /** Puts back a connection whose last answer was read whole, resting {@code restMillis} before its next request. */
    void release(Link l, long restMillis) {
        long now = System.nanoTime();
        Link dropped = null;
        synchronized (this) {
            if (closed) {
                dropped = l;
                if (!l.gone) {
                    l.gone = true;
                    open--;
                }
            } else {
                l.keptAt = now;
                l.restedAt = now + restMillis * 1_000_000L;
                kept.addLast(l);
                if (kept.size() > max) {
                    dropped = kept.pollFirst();
                    dropped.gone = true;
                    open--;
                }
            }
        }
        if (dropped != null) {
            dropped.close();
        }
    }

    /** Closes the kept connections idle longer than the idle timeout; true while any is kept. */
    boolean sweep() {
        long now = System.nanoTime();
        java.util.List<Link> old = new java.util.ArrayList<>();
        boolean any;
        synchronized (this) {
            for (Iterator<Link> it = kept.iterator(); it.hasNext(); ) {
                Link l = it.next();
                if (now - l.keptAt >= idleNanos) {
                    it.remove();
                    l.gone = true;
                    open--;
                    old.add(l);
                }
            }
            any = !kept.isEmpty();
        }
        old.forEach(Link::close);
        return any;
    }

    synchronized int kept() {
        return kept.size();
    }

    @Override
    public void close() {
        java.util.List<Link> all;
        synchronized (this) {
            closed = true;
            all = new java.util.ArrayList<>(kept);
            for (Link l : kept) {
                l.gone = true;
                open--;
            }
            kept.clear();
        }
        all.forEach(Link::close);
    }

    /** The engine's address as last looked up, for {@link #RESOLVED_NANOS}; forgotten when a connect to it fails. */
    private record Resolved(String host, java.net.InetAddress address, long until) {
    }

    /** How long a looked-up address is used for new connections (the JVM's own cache keeps one 30 s). */
    static final long RESOLVED_NANOS = 30_000_000_000L;
    private volatile Resolved resolved;

    /**
     * The address of {@code host}: an IP literal at once; a name from the last lookup while it is recent, else looked
     * up within {@code timeout} (on the shared lookup threads, so a resolver that hangs holds none of the proxy's).
     * A burst of new connections to an engine named by a host name costs one lookup, not one each.
     */
    private java.net.InetAddress address(String host, long timeout) throws IOException {
        Resolved r = resolved;
        long now = System.nanoTime();
        if (r != null && r.host().equals(host) && now - r.until() < 0) {
            return r.address();
        }
        java.net.InetAddress a = HttpExchange.lookUp(host, timeout);
        resolved = new Resolved(host, a, now + RESOLVED_NANOS);
        return a;
    }

    private Link connect(MeteringProxyHandler.Upstream u, String destination) throws IOException {
        String host = u.base().getHost();
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        boolean tls = "https".equalsIgnoreCase(u.base().getScheme());
        int port = u.base().getPort() > 0 ? u.base().getPort() : tls ? 443 : 80;
        long timeout = Math.max(1, u.connectTimeoutMillis());
        long start = System.nanoTime();
        InetSocketAddress address = new InetSocketAddress(address(bare, timeout), port);
        SocketChannel channel = SocketChannel.open();
        Socket raw = channel.socket();
        try {
            raw.setTcpNoDelay(true);
            int left = (int) Math.max(1, timeout - (System.nanoTime() - start) / 1_000_000L);
            try {
                raw.connect(address, left);
            } catch (IOException e) {
                // The engine may have moved (a new address for its name): the next connection looks it up again.
                resolved = null;
                if (!(e instanceof SocketTimeoutException)) {
                    throw e;
                }
                throw new java.net.SocketTimeoutException("no connection to " + destination + " within " + timeout + " ms");
            }
            if (!tls) {
                return new Link(destination, raw, channel, raw);
            }
            SSLSocket s = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(raw, bare, port, true);
            SSLParameters p = s.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(p);
            s.setSoTimeout((int) timeout);
            s.startHandshake();
            s.setSoTimeout(0);
            return new Link(destination, raw, channel, s);
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }
}
