package io.tailwatch.daemon.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.daemon.api.BasicAuthGuard;
import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The metering reverse proxy to one engine, on Jetty's core request and response (no servlet layer, no HTTP client).
 * Each request is handled on the thread that read it, which writes the request to a kept engine connection
 * ({@link EngineLinks}) and then reads the engine's answer itself with blocking reads, parsed by Jetty's
 * {@link HttpParser}: each chunk is written to the client as it comes (a blocking write, which completes at once
 * unless the client is slow) and then read by the exchange's {@link io.tailwatch.core.probe.StreamTap}. No other
 * thread is woken on the way, per request or per chunk. A client that reads slowly holds back only its own engine
 * connection (its thread waits on the write, so the engine's socket is not read); a client write that fails (the
 * client left) closes the engine connection at once, so a serial engine stops generating for nobody. The request
 * body streams through with the same back-pressure both ways. Deadlines: the engine's connect timeout; the idle
 * timeout, while the proxy waits on the engine; and the whole request's timeout; all watched by one task that runs
 * only while requests are in flight ({@link Watch}). Hop-by-hop headers and the ones named in Connection are dropped
 * both ways; {@code Via} and {@code X-Forwarded-*} are set from the connection (the client's own are not trusted:
 * this proxy is the first hop).
 */
final class MeteringProxyHandler extends Handler.Abstract {
    /** The methods passed on to the engine (every one but CONNECT), for Allow. */
    static final String ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
    private static final String VIA_HOST = "tailwatch";
    private static final EnumSet<HttpHeader> HOP_HEADERS = EnumSet.of(HttpHeader.CONNECTION, HttpHeader.KEEP_ALIVE,
            HttpHeader.PROXY_AUTHORIZATION, HttpHeader.PROXY_AUTHENTICATE, HttpHeader.PROXY_CONNECTION,
            HttpHeader.TRANSFER_ENCODING, HttpHeader.TE, HttpHeader.TRAILER, HttpHeader.UPGRADE);
    /** Request headers the proxy sets itself, or drops: the client's are not passed on. */
    private static final EnumSet<HttpHeader> REPLACED = EnumSet.of(HttpHeader.HOST, HttpHeader.EXPECT, HttpHeader.VIA,
            HttpHeader.FORWARDED, HttpHeader.X_FORWARDED_FOR, HttpHeader.X_FORWARDED_HOST, HttpHeader.X_FORWARDED_PORT,
            HttpHeader.X_FORWARDED_PROTO, HttpHeader.X_FORWARDED_SERVER);

    /** Where requests go now, and the key the engine expects (or null); swapped by a reconfigure. */
    record Upstream(URI base, String apiKey, long connectTimeoutMillis, long connectionRestMillis) {
        /** The engine's request target: the URL's path (if any) followed by the client's path and query. */
        String target(Request r) {
            String path = base.getRawPath();
            if (path == null) {
                path = "";
            }
            if (path.endsWith("/")) {
                path = path.substring(0, path.length() - 1);
            }
            String pathQuery = r.getHttpURI().getPathQuery();
            return path + (pathQuery == null ? "/" : pathQuery);
        }

        /** The Host header the engine gets: its own name, as the URL gives it. */
        String host() {
            return base.getPort() > 0 ? base.getHost() + ":" + base.getPort() : base.getHost();
        }

        String name() {
            return base.getScheme() + "://" + base.getHost() + (base.getPort() > 0 ? ":" + base.getPort() : "");
        }
    }

    /** Limits of the connections to the engine, from the proxy's config. */
    record Limits(int maxConnections, long idleTimeoutMillis, long timeoutMillis, int bufferBytes) {
    }

    private final Supplier<Upstream> upstream;
    private final ProxyMeter meter;
    private final Supplier<Lanes> lanes;
    private final ProxyGuard guard;
    private final Limits limits;
    private final Supplier<ApiServer.HostCheck> hosts;
    private final HeadDeadline heads;
    private final EngineLinks links;
    private final Watch watch = new Watch();

    MeteringProxyHandler(Supplier<Upstream> upstream, ProxyMeter meter, Supplier<Lanes> lanes, ProxyGuard guard,
                         Supplier<ApiServer.HostCheck> hosts, HeadDeadline heads, Limits limits) {
        super(InvocationType.BLOCKING);
        this.hosts = hosts;
        this.heads = heads;
        this.upstream = upstream;
        this.meter = meter;
        this.lanes = lanes;
        this.guard = guard;
        this.limits = limits;
        this.links = new EngineLinks(limits.maxConnections(), limits.idleTimeoutMillis());
    }

    /** Kept engine connections now (for tests). */
    int keptConnections() {
        return links.kept();
    }

    /** Engine connections open now, kept or carrying a request (for tests). */
    int openConnections() {
        return links.open();
    }

    @Override
    protected void doStop() throws Exception {
        links.close();
        super.doStop();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long t0 = System.nanoTime();
        if (heads != null) {
            EndPoint ep = request.getConnectionMetaData().getConnection().getEndPoint();
            heads.begun(ep);
            Request.addCompletionListener(request, failure -> heads.answered(ep));
        }
        if (door(request, response, callback)) {
            return true;
        }
        String refused;
        try {
            refused = guard == null ? null : guard.refuse(request);
        } catch (BasicAuthGuard.Busy busy) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
            answer(response, callback, 429, error("too many password checks at once: try again"));
            return true;
        }
        String lane = lanes.get().laneOf(request);
        ProxyMeter.Exchange x = meter.begin(t0, lane, "POST".equals(request.getMethod()));
        if (refused != null) {
            response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Basic realm=\"tailwatch\", charset=\"UTF-8\"");
            answer(response, callback, 401, error("unauthorized").put("reason", refused));
            x.finish(System.nanoTime(), ProxyOutcome.REJECTED, null);
            return true;
        }
        Forward f = new Forward(request, response, callback, x, upstream.get(), t0);
        try {
            f.run();
        } catch (RuntimeException | Error e) {
            // Whatever went wrong, the request is counted, not left in flight, and its engine connection closed.
            f.abort();
            if (!x.finished()) {
                x.finish(System.nanoTime(), ProxyOutcome.UPSTREAM_FAILED, ProxyOutcome.UPSTREAM_FAILED.value());
            }
            throw e;
        } finally {
            watch.remove(f);
        }
        return true;
    }

    /**
     * What a reverse proxy answers itself, before anything reaches the engine or is metered: a name that is not
     * the proxy's own (421: a page on another site that rebinds its name to this address must not reach the
     * engine, whose own Host check the proxy would otherwise defeat), CONNECT (405: this is not a tunnel, and a
     * tunnel to the engine would hold a connection for nothing), and {@code OPTIONS *} (the proxy's own methods).
     * True when answered.
     */
    private boolean door(Request request, Response response, Callback callback) {
        String method = request.getMethod();
        if (HttpMethod.CONNECT.is(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, ALLOW);
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            answer(response, callback, 405, error("CONNECT is not served: this is a reverse proxy to one engine, not a tunnel"));
            return true;
        }
        ApiServer.HostCheck names = hosts == null ? null : hosts.get();
        if (names != null && (!names.allowed(request.getHeaders().get(HttpHeader.HOST))
                || !names.allowed(ApiServer.HostCheck.literal(Request.getServerName(request))))) {
            answer(response, callback, 421, error("misdirected request: this proxy does not answer to that Host name "
                    + "(add it to server.allowed_hosts)"));
            return true;
        }
        if (HttpMethod.OPTIONS.is(method) && "*".equals(request.getHttpURI().getPath())) {
            response.getHeaders().put(HttpHeader.ALLOW, ALLOW);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0);
            response.write(true, null, callback);
            return true;
        }
        return false;
    }

    /**
     * The client's side failed: its request body could not be read ({@code body}: malformed, its own fault, or cut,
     * it left), or a write to it failed (it left, or stopped reading for longer than the idle timeout).
     */
    private static final class ClientFailure extends IOException {
        final boolean body;

        ClientFailure(Throwable cause, boolean body) {
            super(cause);
            this.body = body;
        }
    }

    /** One request on its way to the engine and its answer on the way back, all on the request's thread. */
    private final class Forward implements HttpParser.ResponseHandler {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final ProxyMeter.Exchange x;
        private final Upstream u;
        private final long deadline;
        private final Blocker.Shared blocker = new Blocker.Shared();
        private volatile EngineLinks.Link link;
        /** Since when (System.nanoTime) the proxy has waited on the engine, or {@link #NOT_WAITING}. */
        private volatile long waitingSince = NOT_WAITING;
        /** Why the watch closed the engine connection, if it did. */
        private volatile TimeoutException timedOut;
        private volatile boolean aborted;
        private int status;
        private boolean persistent = true;
        private boolean complete;
        private boolean written;
        private IOException failure;
        private long arrived;
        private java.util.List<HttpField> fields;

        Forward(Request request, Response response, Callback callback, ProxyMeter.Exchange x, Upstream u, long t0) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.x = x;
            this.u = u;
            this.deadline = limits.timeoutMillis() > 0 ? t0 + limits.timeoutMillis() * 1_000_000L : Long.MAX_VALUE;
        }

        void run() {
            watch.add(this);
            // The client's side idle while the proxy waits on the engine (a long prefill) is not a failure: the
            // watch owns the engine's silence (a 504, counted as the engine's timeout). A read or write pending on the
            // client's side is still failed by Jetty at the idle timeout.
            request.addIdleTimeoutListener(t -> false);
            request.addFailureListener(t -> {
                if (!(t instanceof TimeoutException)) {
                    x.clientGone = true;
                }
                abort();
            });
            EngineLinks.Link l;
            try {
                waitingSince = System.nanoTime();
                l = links.acquire(u);
            } catch (IOException e) {
                failed(e);
                return;
            }
            link = l;
            try {
                if (aborted) {
                    throw new java.net.SocketException("the exchange was ended");
                }
                try {
                    send(l);
                } catch (ClientFailure clients) {
                    throw clients;
                } catch (IOException cut) {
                    answeredEarly(l, cut);
                    return;
                }
                receive(l);
            } catch (IOException e) {
                // The engine connection is closed before the client hears of the failure.
                links.discard(l);
                failed(e);
                return;
            } catch (RuntimeException | Error e) {
                links.discard(l);
                throw e;
            } finally {
                link = null;
            }
            // The answer was read whole: the connection can carry the next request.
            if (persistent && !aborted) {
                // Bytes an engine sends after an answer without a body would be read as the next one's: checked first.
                l.checkNext = HttpMethod.HEAD.is(request.getMethod()) || status == 204 || status == 304;
                links.release(l, u.connectionRestMillis());
            } else {
                links.discard(l);
            }
            end();
        }

        /** Closes the engine connection (a blocked read or write there ends at once). */
        void abort() {
            aborted = true;
            EngineLinks.Link l = link;
            if (l != null) {
                l.close();
            }
        }

        /**
         * The engine stopped taking the request's body: it may have answered before the body ended (a 413 for a body
         * too large, a 401) and closed its side. That answer goes to the client as it came; the connection is not
         * kept (the engine did not read the whole request). Without one, the write's failure stands.
         */
        private void answeredEarly(EngineLinks.Link l, IOException cut) {
            IOException failure = cut;
            if (!aborted && timedOut == null) {
                try {
                    receive(l);
                    failure = null;
                } catch (IOException none) {
                    if (none instanceof ClientFailure || x.headersAt >= 0) {
                        failure = none; // the answer began: how passing it on failed (the client left) is what counts
                    } else {
                        cut.addSuppressed(none);
                    }
                }
            }
            links.discard(l); // closed before the client hears of it; never kept
            if (failure != null) {
                failed(failure);
            } else {
                end();
            }
        }

        /** Called by the watch: ends the exchange if it has waited on the engine too long, or run out of time. */
        void check(long now) {
            long since = waitingSince;
            if (timedOut != null) {
                return;
            }
            if (now - deadline >= 0) {
                timedOut = overTime();
            } else if (since != NOT_WAITING && now - since >= limits.idleTimeoutMillis() * 1_000_000L) {
                timedOut = new TimeoutException("the engine was silent for " + limits.idleTimeoutMillis() + " ms");
            } else {
                return;
            }
            abort();
        }

        /** Why a request past its {@code timeout} ends, whichever thread finds it so. */
        private TimeoutException overTime() {
            return new TimeoutException("the request took longer than " + limits.timeoutMillis() + " ms");
        }

        /** The request's head and body, written to the engine. */
        private void send(EngineLinks.Link l) throws IOException {
            OutputStream out = l.out;
            // The request line in UTF-8: a path of raw UTF-8 bytes (which Jetty read as UTF-8) goes on as it came.
            out.write((request.getMethod() + ' ' + u.target(request) + " HTTP/1.1\r\n").getBytes(StandardCharsets.UTF_8));
            StringBuilder h = new StringBuilder(512);
            field(h, "Host", u.host());
            HttpFields in = request.getHeaders();
            java.util.Set<String> named = connectionNames(in);
            StringBuilder via = null;
            for (HttpField f : in) {
                HttpHeader known = f.getHeader();
                if (known == HttpHeader.VIA) {
                    String v = f.getValue();
                    if (v != null && !v.isBlank()) {
                        via = (via == null ? new StringBuilder() : via.append(", ")).append(v);
                    }
                    continue;
                }
                if (known != null && (HOP_HEADERS.contains(known) || REPLACED.contains(known))) {
                    continue;
                }
                if (known == HttpHeader.AUTHORIZATION && guard != null) {
                    // The client's Basic credentials were for the proxy; the engine gets its own key, if it has one.
                    continue;
                }
                if (known == null && "x-real-ip".equalsIgnoreCase(f.getName())) {
                    continue;
                }
                if (named != null && named.contains(f.getLowerCaseName())) {
                    continue;
                }
                field(h, f.getName(), f.getValue());
            }
            String protocol = request.getConnectionMetaData().getProtocol();
            String version = protocol.regionMatches(true, 0, "HTTP/", 0, 5) ? protocol.substring(5) : protocol;
            field(h, "Via", (via == null ? "" : via.append(", ").toString()) + version + " " + VIA_HOST);
            field(h, "X-Forwarded-For", Request.getRemoteAddr(request));
            field(h, "X-Forwarded-Proto", request.isSecure() ? "https" : "http");
            String host = in.get(HttpHeader.HOST);
            if (host != null) {
                field(h, "X-Forwarded-Host", host);
            }
            if (guard != null && u.apiKey() != null) {
                field(h, "Authorization", "Bearer " + u.apiKey());
            }
            long length = request.getLength();
            boolean chunked = length < 0 && in.get(HttpHeader.TRANSFER_ENCODING) != null;
            if (chunked) {
                field(h, "Transfer-Encoding", "chunked");
            }
            h.append("\r\n");
            out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
            if (length > 0 || chunked) {
                body(l, chunked);
            }
            waitingSince = System.nanoTime();
            out.flush();
        }

        /** Streams the client's body on to the engine, a chunk at a time, as it arrives. */
        private void body(EngineLinks.Link l, boolean chunked) throws IOException {
            OutputStream out = l.out;
            byte[] copy = l.buffer;
            while (true) {
                Content.Chunk c = request.read();
                if (c == null) {
                    // Nothing yet: what was gathered goes to the engine, then the client's next bytes are awaited.
                    waitingSince = System.nanoTime();
                    out.flush();
                    waitingSince = NOT_WAITING;
                    awaitClient();
                    continue;
                }
                if (Content.Chunk.isFailure(c)) {
                    throw new ClientFailure(c.getFailure(), true);
                }
                try {
                    ByteBuffer b = c.getByteBuffer();
                    int n = b.remaining();
                    if (n > 0 && chunked) {
                        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    }
                    waitingSince = System.nanoTime();
                    while (b.hasRemaining()) {
                        int k = Math.min(b.remaining(), copy.length);
                        b.get(copy, 0, k);
                        out.write(copy, 0, k);
                    }
                    if (n > 0 && chunked) {
                        out.write(CRLF);
                    }
                } finally {
                    c.release();
                }
                if (c.isLast()) {
                    if (chunked) {
                        out.write(LAST_CHUNK);
                    }
                    return;
                }
            }
        }

        /**
         * Waits for more of the client's body, at most until the request's {@code timeout}: a client that sends its
         * body a byte at a time, each within the idle timeout, is cut there (a 504, as any request past its time).
         * A latch of its own per wait, not the shared blocker: a demand left pending at the deadline runs later
         * without waking anything else.
         */
        private void awaitClient() throws IOException {
            java.util.concurrent.CountDownLatch more = new java.util.concurrent.CountDownLatch(1);
            // Non-blocking, as the shared blocker's was: Jetty runs it on the thread that found the bytes, no hand-off.
            request.demand(org.eclipse.jetty.util.thread.Invocable.from(
                    org.eclipse.jetty.util.thread.Invocable.InvocationType.NON_BLOCKING, more::countDown));
            try {
                if (deadline == Long.MAX_VALUE) {
                    more.await();
                } else if (!more.await(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    if (timedOut == null) {
                        timedOut = overTime();
                    }
                    throw new IOException(timedOut);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while the client's body was awaited");
            }
        }

        /** Reads the engine's answer, writing each piece of its body to the client as it arrives. */
        private void receive(EngineLinks.Link l) throws IOException {
            HttpParser parser = new HttpParser(this, EngineProxy.MAX_HEADER_BYTES);
            boolean head = HttpMethod.HEAD.is(request.getMethod());
            parser.setHeadResponse(head);
            ByteBuffer buf = ByteBuffer.wrap(l.buffer, 0, 0);
            while (true) {
                if (!buf.hasRemaining() && !parser.isAtEOF()) {
                    waitingSince = System.nanoTime();
                    int n;
                    try {
                        n = l.in.read(l.buffer, 0, l.buffer.length);
                    } catch (IOException e) {
                        if (timedOut != null) {
                            throw new IOException(timedOut);
                        }
                        throw e;
                    }
                    arrived = System.nanoTime();
                    waitingSince = NOT_WAITING;
                    if (n < 0) {
                        parser.atEOF();
                        persistent = false;
                        buf.limit(0).position(0);
                    } else {
                        buf.limit(n).position(0);
                    }
                }
                parser.parseNext(buf);
                if (failure != null) {
                    throw failure;
                }
                if (complete) {
                    if (status < 200) {
                        // An interim answer (102, 103): the final one follows on the same connection.
                        complete = false;
                        fields = null;
                        parser.reset();
                        parser.setHeadResponse(head);
                        continue;
                    }
                    if (buf.hasRemaining() || parser.isClose() || parser.isAtEOF()) {
                        persistent = false;
                    }
                    return;
                }
                if (parser.isAtEOF() && !buf.hasRemaining()) {
                    // The parser has said its last (earlyEOF or a whole answer that ended with the connection).
                    parser.parseNext(buf);
                    if (failure != null) {
                        throw failure;
                    }
                    if (!complete) {
                        throw new java.io.EOFException("the engine closed the connection before the end of its answer");
                    }
                }
            }
        }

        @Override
        public void startResponse(HttpVersion version, int status, String reason) {
            this.status = status;
            if (version != HttpVersion.HTTP_1_1) {
                persistent = false;
            }
        }

        @Override
        public void parsedHeader(HttpField field) {
            if (status < 200) {
                return;
            }
            if (fields == null) {
                fields = new java.util.ArrayList<>();
            }
            fields.add(field);
        }

        @Override
        public boolean headerComplete() {
            if (status < 200) {
                return false;
            }
            x.headers(System.nanoTime(), status, fields == null ? null : value(fields, HttpHeader.CONTENT_TYPE));
            response.setStatus(status);
            if (fields == null) {
                return false;
            }
            java.util.Set<String> named = connectionNames(fields);
            if (named != null && named.contains("close")) {
                persistent = false;
            }
            HttpFields.Mutable out = response.getHeaders();
            java.util.Set<String> seen = new java.util.HashSet<>();
            for (HttpField f : fields) {
                if ((f.getHeader() != null && HOP_HEADERS.contains(f.getHeader()))
                        || (named != null && named.contains(f.getLowerCaseName()))) {
                    continue;
                }
                // The first of a name replaces what the server would add (Date, Server); repeats are kept.
                if (seen.add(f.getLowerCaseName())) {
                    out.put(f);
                } else {
                    out.add(f);
                }
            }
            return false;
        }

        @Override
        public boolean content(ByteBuffer b) {
            if (status < 200 || !b.hasRemaining()) {
                return false;
            }
            int from = b.position();
            int to = b.limit();
            waitingSince = NOT_WAITING;
            try (Blocker.Callback cb = blocker.callback()) {
                response.write(false, b, cb);
                cb.block();
            } catch (IOException e) {
                failure = new ClientFailure(e, false);
                return true;
            }
            written = true;
            tap(b.array(), b.arrayOffset() + from, to - from, arrived);
            return false;
        }

        @Override
        public boolean contentComplete() {
            return false;
        }

        @Override
        public boolean messageComplete() {
            complete = true;
            return true;
        }

        @Override
        public void earlyEOF() {
            if (failure == null) {
                failure = new java.io.EOFException("the engine closed the connection before the end of its answer");
            }
        }

        @Override
        public void badMessage(HttpException bad) {
            if (failure == null) {
                failure = new IOException("the engine's answer is malformed: " + bad.getReason());
            }
        }

        private void tap(byte[] bytes, int off, int len, long nanos) {
            if (x.tap == null || len <= 0) {
                return;
            }
            try {
                x.tap.bytes(bytes, off, len, nanos);
            } catch (RuntimeException e) {
                // Metering never stands in the way of the bytes.
            }
        }

        /** The engine's answer was read whole: the client's ends, then the exchange is counted. */
        private void end() {
            try (Blocker.Callback cb = blocker.callback()) {
                response.write(true, null, cb);
                cb.block();
            } catch (IOException e) {
                x.clientGone = true;
                if (!x.finished()) {
                    x.finish(System.nanoTime(), ProxyOutcome.CLIENT_DISCONNECT, "client_disconnect");
                }
                callback.failed(e);
                return;
            }
            long now = System.nanoTime();
            if (x.tap != null) {
                x.tap.end(now);
            }
            String streamError = x.tap == null ? null : x.tap.streamError();
            if (status >= 400) {
                x.finish(now, ProxyOutcome.HTTP_ERROR, "http_" + status);
            } else if ("stream_error".equals(streamError)) {
                x.finish(now, ProxyOutcome.STREAM_ERROR, streamError);
            } else {
                x.finish(now, ProxyOutcome.OK, null);
            }
            callback.succeeded();
        }

        /**
         * The exchange with the engine failed: the engine could not be reached, timed out or broke off, or the
         * client's side of it failed (its body could not be read, or it left). Counted by cause; the client gets a
         * short JSON answer naming the engine while its response has not begun, else its connection is cut.
         */
        private void failed(IOException e) {
            waitingSince = NOT_WAITING;
            Throwable cause = timedOut != null ? timedOut : e;
            if (e instanceof ClientFailure client && client.body && client.getCause() instanceof HttpException bad
                    && !response.isCommitted()) {
                // The client's body was malformed (a bad chunk): the client's fault, said to the client, not the engine's.
                if (!x.finished()) {
                    x.finish(System.nanoTime(), ProxyOutcome.REJECTED, null);
                }
                response.reset();
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
                answer(response, callback, 400, error("the request body is malformed: " + bad.getReason()).put("status", 400));
                return;
            }
            if (e instanceof ClientFailure) {
                x.clientGone = true;
            }
            ProxyOutcome outcome = classify(x, cause);
            if (!x.finished()) {
                x.finish(System.nanoTime(), outcome, outcome.value());
            }
            if (written || response.isCommitted() || outcome == ProxyOutcome.CLIENT_DISCONNECT) {
                callback.failed(cause);
                return;
            }
            int code = outcome == ProxyOutcome.UPSTREAM_TIMEOUT ? 504 : 502;
            String what = code == 504 ? "the engine did not answer in time"
                    : "the engine cannot be reached or broke off its answer";
            // The engine's headers, if it sent any, are not the error's: the whole response starts anew.
            response.reset();
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            answer(response, callback, code, error(what).put("upstream", u.name()).put("engine", meter.engine())
                    .put("status", code));
        }
    }

    private static final long NOT_WAITING = Long.MIN_VALUE;
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    /** A header line; a control character in the value (none passes Jetty's parser) would become a space. */
    private static void field(StringBuilder h, String name, String value) {
        h.append(name).append(": ");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            h.append(c < 0x20 && c != '\t' || c == 0x7f ? ' ' : c);
        }
        h.append("\r\n");
    }

    private static String value(java.util.List<HttpField> fields, HttpHeader header) {
        for (HttpField f : fields) {
            if (f.getHeader() == header) {
                return f.getValue();
            }
        }
        return null;
    }

    /** The header names a message's Connection fields list (which are hop-by-hop), or null for none. */
    private static java.util.Set<String> connectionNames(Iterable<HttpField> headers) {
        java.util.Set<String> named = null;
        for (HttpField f : headers) {
            if (f.getHeader() != HttpHeader.CONNECTION) {
                continue;
            }
            for (String name : f.getValue().split(",")) {
                String n = name.trim().toLowerCase(Locale.ROOT);
                if (!n.isEmpty()) {
                    if (named == null) {
                        named = new java.util.HashSet<>();
                    }
                    named.add(n);
                }
            }
        }
        return named;
    }

    /**
     * Watches the deadlines of the requests in flight: one task on the server's scheduler, a few times per idle
     * timeout, and only while a request is in flight (an idle proxy wakes no thread).
     */
    private final class Watch implements Runnable {
        private final java.util.Set<Forward> active = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();

        void add(Forward f) {
            active.add(f);
            arm();
        }

        void remove(Forward f) {
            active.remove(f);
        }

        private void arm() {
            if (armed.compareAndSet(false, true)) {
                Scheduler s = getServer() == null ? null : getServer().getScheduler();
                if (s == null) {
                    armed.set(false);
                    return;
                }
                long every = Math.max(50, Math.min(1_000, Math.min(limits.idleTimeoutMillis(),
                        limits.timeoutMillis() > 0 ? limits.timeoutMillis() : Long.MAX_VALUE) / 4));
                s.schedule(this, every, TimeUnit.MILLISECONDS);
            }
        }

        @Override
        public void run() {
            boolean kept = true;
            try {
                long now = System.nanoTime();
                for (Forward f : active) {
                    f.check(now);
                }
                kept = links.sweep();
            } finally {
                // Whatever went wrong in one look, the deadlines are looked at again.
                armed.set(false);
                if (!active.isEmpty() || kept) {
                    arm();
                }
            }
        }
    }

    static boolean unreachable(Throwable failure) {
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof UnresolvedAddressException || t instanceof java.net.UnknownHostException) {
                return true;
            }
        }
        return false;
    }

    static ProxyOutcome classify(ProxyMeter.Exchange x, Throwable failure) {
        if (x.clientGone) {
            return ProxyOutcome.CLIENT_DISCONNECT;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException) {
                return ProxyOutcome.UPSTREAM_TIMEOUT;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return x.headersAt < 0 && unreachable(failure) ? ProxyOutcome.UPSTREAM_UNREACHABLE : ProxyOutcome.UPSTREAM_FAILED;
    }

    /** The start of an error answer from the proxy itself: {"error": what}, to which fields may be added. */
    static ObjectNode error(String what) {
        return Json.MAPPER.createObjectNode().put("error", what);
    }

    /** A whole short JSON answer from the proxy itself, on one line. */
    static void answer(Response response, Callback callback, int status, ObjectNode json) {
        byte[] body;
        try {
            body = Json.MAPPER.writeValueAsBytes(json);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        body = java.util.Arrays.copyOf(body, body.length + 1);
        body[body.length - 1] = '\n';
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
