package io.tailwatch.daemon.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.daemon.api.BasicAuthGuard;
import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.eclipse.jetty.client.DuplexConnectionPool;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.ValidatingConnectionPool;
import org.eclipse.jetty.client.transport.HttpClientTransportOverHTTP;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.proxy.ProxyHandler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's reverse proxy on its core request and response (no servlet layer), with the metering hooks. The request
 * body is read and sent on as it arrives, with back-pressure both ways (Jetty's {@link ProxyHandler}). Each chunk of
 * the answer is written to the client as it comes from the engine, without blocking and without gathering, then read
 * by the exchange's {@link io.tailwatch.core.probe.StreamTap}; only then is the engine side asked for the next one,
 * so a client that reads slowly leaves its engine connection unread and holds no thread. A client write that fails
 * (the client left) aborts the request to the engine at once, so a serial engine stops generating for nobody.
 * Hop-by-hop headers and the ones named in Connection are Jetty's to drop; {@code Via} and {@code X-Forwarded-*}
 * are set here from the connection (the client's own are not trusted: this proxy is the first hop).
 */
final class MeteringProxyHandler extends ProxyHandler {
    private static final String EXCHANGE = MeteringProxyHandler.class.getName() + ".exchange";
    private static final String BODY_FAILURE = MeteringProxyHandler.class.getName() + ".bodyFailure";
    /** The methods passed on to the engine (every one but CONNECT), for Allow. */
    static final String ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

    /** Where requests go now, and the key the engine expects (or null); swapped by a reconfigure. */
    record Upstream(URI base, String apiKey, long connectTimeoutMillis, long connectionRestMillis) {
        HttpURI target(Request r) {
            String b = base.toString();
            if (b.endsWith("/")) {
                b = b.substring(0, b.length() - 1);
            }
            String pathQuery = r.getHttpURI().getPathQuery();
            return HttpURI.from(b + (pathQuery == null ? "/" : pathQuery));
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

    MeteringProxyHandler(Supplier<Upstream> upstream, ProxyMeter meter, Supplier<Lanes> lanes, ProxyGuard guard,
                         Supplier<ApiServer.HostCheck> hosts, HeadDeadline heads, Limits limits) {
        this.hosts = hosts;
        this.heads = heads;
        this.upstream = upstream;
        this.meter = meter;
        this.lanes = lanes;
        this.guard = guard;
        this.limits = limits;
        setViaHost("tailwatch");
    }

    @Override
    protected HttpClient newHttpClient() {
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(1);
        HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP(connector);
        // Nothing the response listener does blocks (the client write is asynchronous, the tap and the meter only
        // count): the engine side's selector thread runs it at once, so a chunk goes from the engine's socket to the
        // client's in one thread, without a hand-off to the pool per chunk.
        transport.setInvocationType(org.eclipse.jetty.util.thread.Invocable.InvocationType.NON_BLOCKING);
        // A connection rests this long after an answer before it carries the next request (ProxyConfig's
        // connection_rest: llama.cpp's server closes without saying so; 0: none). A request that finds no rested
        // connection opens a new one. (A close later than this still fails the request sent on it: Jetty does
        // not send a POST again.)
        long rest = upstream.get().connectionRestMillis();
        transport.setConnectionPoolFactory(d -> rest > 0
                ? new ValidatingConnectionPool(d, limits.maxConnections(), d.getHttpClient().getScheduler(), rest)
                : new DuplexConnectionPool(d, limits.maxConnections()));
        HttpClient client = new HttpClient(transport);
        client.setConnectTimeout(upstream.get().connectTimeoutMillis());
        client.setIdleTimeout(limits.idleTimeoutMillis());
        client.setMaxConnectionsPerDestination(limits.maxConnections());
        client.setRequestBufferSize(limits.bufferBytes());
        client.setResponseBufferSize(limits.bufferBytes());
        // Heap buffers: the tap reads each chunk's bytes where they lie, without a copy.
        client.setUseInputDirectByteBuffers(false);
        // The client's own User-Agent goes through; the proxy adds none.
        client.setUserAgentField(null);
        return client;
    }

    /**
     * Nothing here waits (the request goes on to the engine asynchronously, an answer of the proxy's own is written
     * without blocking), so the thread that read a request handles it at once, without a hand-off to another thread.
     * A password check (bcrypt) takes milliseconds of CPU: with basic auth the request is handled on a pool thread.
     */
    @Override
    public InvocationType getInvocationType() {
        return guard == null ? InvocationType.NON_BLOCKING : InvocationType.BLOCKING;
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
        request.setAttribute(EXCHANGE, x);
        try {
            return super.handle(request, response, callback);
        } catch (RuntimeException e) {
            // The request could not be passed on: it is counted, not left in flight.
            if (!x.finished()) {
                x.finish(System.nanoTime(), ProxyOutcome.CLIENT_DISCONNECT, "client_disconnect");
            }
            throw e;
        }
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

    /** Notes a failure of the client's request body (a malformed chunk, a client that left) as it is read. */
    @Override
    protected org.eclipse.jetty.client.Request.Content newProxyToServerRequestContent(Request clientToProxyRequest,
            Response proxyToClientResponse, org.eclipse.jetty.client.Request proxyToServerRequest) {
        return new ProxyRequestContent(clientToProxyRequest) {
            @Override
            public Content.Chunk read() {
                Content.Chunk chunk = super.read();
                if (chunk != null && Content.Chunk.isFailure(chunk)) {
                    clientToProxyRequest.setAttribute(BODY_FAILURE, chunk.getFailure());
                }
                return chunk;
            }
        };
    }

    private static ProxyMeter.Exchange exchange(Request request) {
        return (ProxyMeter.Exchange) request.getAttribute(EXCHANGE);
    }

    @Override
    protected HttpURI rewriteHttpURI(Request clientToProxyRequest) {
        return upstream.get().target(clientToProxyRequest);
    }

    @Override
    protected org.eclipse.jetty.client.Request newProxyToServerRequest(Request clientToProxyRequest, HttpURI newHttpURI) {
        org.eclipse.jetty.client.Request r = super.newProxyToServerRequest(clientToProxyRequest, newHttpURI)
                .idleTimeout(limits.idleTimeoutMillis(), TimeUnit.MILLISECONDS);
        if (limits.timeoutMillis() > 0) {
            r.timeout(limits.timeoutMillis(), TimeUnit.MILLISECONDS);
        }
        return r;
    }

    @Override
    protected void copyRequestHeaders(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
        super.copyRequestHeaders(clientToProxyRequest, proxyToServerRequest);
        // The engine is addressed by its own name (the client computes Host from the target).
        proxyToServerRequest.headers(h -> h.remove(HttpHeader.HOST));
    }

    @Override
    protected void addProxyHeaders(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest) {
        addViaHeader(clientToProxyRequest, proxyToServerRequest);
        String host = clientToProxyRequest.getHeaders().get(HttpHeader.HOST);
        String proto = clientToProxyRequest.isSecure() ? "https" : "http";
        String remote = Request.getRemoteAddr(clientToProxyRequest);
        Upstream u = upstream.get();
        proxyToServerRequest.headers(h -> {
            // This proxy is the first hop: what a client says about earlier hops is not passed on as fact.
            h.remove(HttpHeader.FORWARDED);
            h.remove(HttpHeader.X_FORWARDED_PORT);
            h.remove(HttpHeader.X_FORWARDED_SERVER);
            h.remove("X-Real-IP");
            h.put(HttpHeader.X_FORWARDED_FOR, remote);
            h.put(HttpHeader.X_FORWARDED_PROTO, proto);
            if (host != null) {
                h.put(HttpHeader.X_FORWARDED_HOST, host);
            } else {
                h.remove(HttpHeader.X_FORWARDED_HOST);
            }
            if (guard != null) {
                // The client's Basic credentials were for the proxy; the engine gets its own key, if it has one.
                h.remove(HttpHeader.AUTHORIZATION);
                if (u.apiKey() != null) {
                    h.put(HttpHeader.AUTHORIZATION, "Bearer " + u.apiKey());
                }
            }
        });
    }

    @Override
    protected org.eclipse.jetty.client.Response.CompleteListener newServerToProxyResponseListener(
            Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest, Response proxyToClientResponse,
            Callback proxyToClientCallback) {
        return new MeteredListener(clientToProxyRequest, proxyToServerRequest, proxyToClientResponse, proxyToClientCallback);
    }

    /** Jetty's listener, with the tap and the exchange's timings. */
    private final class MeteredListener extends ProxyResponseListener {
        private final ProxyMeter.Exchange x;
        private final Response proxyToClientResponse;
        private final Written written = new Written();

        MeteredListener(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest,
                        Response proxyToClientResponse, Callback proxyToClientCallback) {
            super(clientToProxyRequest, proxyToServerRequest, proxyToClientResponse, proxyToClientCallback);
            this.x = exchange(clientToProxyRequest);
            this.proxyToClientResponse = proxyToClientResponse;
        }

        @Override
        public void onHeaders(org.eclipse.jetty.client.Response serverToProxyResponse) {
            if (x != null) {
                x.headers(System.nanoTime(), serverToProxyResponse.getStatus(),
                        serverToProxyResponse.getHeaders().get(HttpHeader.CONTENT_TYPE));
            }
            super.onHeaders(serverToProxyResponse);
        }

        /**
         * Reads the engine's answer itself, a chunk at a time: each chunk is written to the client and tapped, and only
         * then is the next one read (or, when none has arrived, asked for). A chunk already there is taken in the same
         * turn, and a write that completes at once goes on to the next read without a new demand or a hand-off.
         */
        @Override
        public void onContentSource(org.eclipse.jetty.client.Response serverToProxyResponse, Content.Source source) {
            this.serverToProxyResponse = serverToProxyResponse;
            this.source = source;
            pump.run();
        }

        /** The engine's answer, set when its content begins. */
        private org.eclipse.jetty.client.Response serverToProxyResponse;
        private Content.Source source;
        /** Where the write of the chunk in flight stands; see {@link Pump#run}. */
        private final java.util.concurrent.atomic.AtomicInteger writing = new java.util.concurrent.atomic.AtomicInteger(IDLE);
        private static final int IDLE = 0;
        private static final int WRITING = 1;
        private static final int PENDING = 2;
        private static final int WRITTEN = 3;
        private static final int FAILED = 4;
        private final Pump pump = new Pump();

        /** Reads and writes on until a write is left pending, no chunk is there (then asks for one) or the answer ends. */
        private final class Pump implements org.eclipse.jetty.util.thread.Invocable.Task {
            @Override
            public void run() {
                while (true) {
                    Content.Chunk chunk = source.read();
                    if (chunk == null) {
                        source.demand(this);
                        return;
                    }
                    if (Content.Chunk.isFailure(chunk)) {
                        serverToProxyResponse.abort(chunk.getFailure());
                        if (!chunk.isLast()) {
                            source.fail(chunk.getFailure());
                        }
                        return;
                    }
                    ByteBuffer content = chunk.getByteBuffer();
                    if (!content.hasRemaining()) {
                        chunk.release();
                        if (chunk.isLast()) {
                            return;
                        }
                        continue;
                    }
                    written.chunk = chunk;
                    written.arrived = System.nanoTime();
                    written.from = content.position();
                    written.to = content.limit();
                    writing.set(WRITING);
                    proxyToClientResponse.write(false, content, written);
                    // Still in flight: its callback reads on. Written already: this loop does. Failed: nothing more.
                    if (writing.compareAndExchange(WRITING, PENDING) != WRITTEN) {
                        return;
                    }
                }
            }

            @Override
            public InvocationType getInvocationType() {
                return InvocationType.NON_BLOCKING;
            }
        }

        /** The write of the chunk in flight to the client: tapped once written, then the next one is read. */
        private final class Written implements Callback {
            Content.Chunk chunk;
            long arrived;
            int from;
            int to;

            @Override
            public void succeeded() {
                Content.Chunk c = chunk;
                chunk = null;
                tap(c.getByteBuffer(), from, to, arrived);
                c.release();
                if (writing.compareAndExchange(WRITING, WRITTEN) != WRITING) {
                    // Completed later than the write call: the read goes on here.
                    writing.set(IDLE);
                    pump.run();
                }
            }

            @Override
            public void failed(Throwable failure) {
                Content.Chunk c = chunk;
                chunk = null;
                writing.set(FAILED);
                c.release();
                if (x != null) {
                    x.clientGone = true;
                }
                // Cannot write to the client: the request to the engine ends now.
                serverToProxyResponse.abort(failure);
            }

            @Override
            public InvocationType getInvocationType() {
                return InvocationType.NON_BLOCKING;
            }
        }

        /** Reads bytes [from, to) of the chunk's buffer (its position and limit when it arrived, whatever the write did). */
        private void tap(ByteBuffer b, int from, int to, long nanos) {
            if (x == null || x.tap == null || to <= from) {
                return;
            }
            try {
                if (b.hasArray()) {
                    x.tap.bytes(b.array(), b.arrayOffset() + from, to - from, nanos);
                } else {
                    byte[] copy = new byte[to - from];
                    b.get(from, copy);
                    x.tap.bytes(copy, 0, copy.length, nanos);
                }
            } catch (RuntimeException e) {
                // Metering never stands in the way of the bytes.
            }
        }
    }

    @Override
    protected void onProxyToClientResponseComplete(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest,
                                                   org.eclipse.jetty.client.Response serverToProxyResponse,
                                                   Response proxyToClientResponse, Callback proxyToClientCallback) {
        ProxyMeter.Exchange x = exchange(clientToProxyRequest);
        if (x != null) {
            long end = System.nanoTime();
            if (x.tap != null) {
                x.tap.end(end);
            }
            int status = serverToProxyResponse.getStatus();
            String streamError = x.tap == null ? null : x.tap.streamError();
            if (status >= 400) {
                x.finish(end, ProxyOutcome.HTTP_ERROR, "http_" + status);
            } else if ("stream_error".equals(streamError)) {
                x.finish(end, ProxyOutcome.STREAM_ERROR, streamError);
            } else {
                x.finish(end, ProxyOutcome.OK, null);
            }
        }
        super.onProxyToClientResponseComplete(clientToProxyRequest, proxyToServerRequest, serverToProxyResponse,
                proxyToClientResponse, proxyToClientCallback);
    }

    @Override
    protected void onProxyToClientResponseFailure(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest,
                                                  org.eclipse.jetty.client.Response serverToProxyResponse,
                                                  Response proxyToClientResponse, Callback proxyToClientCallback, Throwable failure) {
        ProxyMeter.Exchange x = exchange(clientToProxyRequest);
        if (x != null && !x.finished()) {
            x.clientGone = true;
            x.finish(System.nanoTime(), ProxyOutcome.CLIENT_DISCONNECT, "client_disconnect");
        }
        super.onProxyToClientResponseFailure(clientToProxyRequest, proxyToServerRequest, serverToProxyResponse,
                proxyToClientResponse, proxyToClientCallback, failure);
    }

    /**
     * The exchange with the engine failed: the engine could not be reached, timed out or broke off, or the
     * client's side of it failed (its body could not be read, or it left). Counted by cause; the client gets a
     * short JSON answer naming the engine while its response has not begun, else its connection is cut.
     */
    @Override
    protected void onServerToProxyResponseFailure(Request clientToProxyRequest, org.eclipse.jetty.client.Request proxyToServerRequest,
                                                  org.eclipse.jetty.client.Response serverToProxyResponse,
                                                  Response proxyToClientResponse, Callback proxyToClientCallback, Throwable failure) {
        ProxyMeter.Exchange x = exchange(clientToProxyRequest);
        Throwable bodyFailure = (Throwable) clientToProxyRequest.getAttribute(BODY_FAILURE);
        if (bodyFailure instanceof HttpException bad && !proxyToClientResponse.isCommitted()) {
            // The client's body was malformed (a bad chunk): the client's fault, said to the client, not the engine's.
            if (x != null && !x.finished()) {
                x.finish(System.nanoTime(), ProxyOutcome.REJECTED, null);
            }
            proxyToClientResponse.reset();
            proxyToClientResponse.getHeaders().put(HttpHeader.CONNECTION, "close");
            answer(proxyToClientResponse, proxyToClientCallback, 400,
                    error("the request body is malformed: " + bad.getReason()).put("status", 400));
            return;
        }
        if (bodyFailure != null && x != null) {
            x.clientGone = true;
        }
        ProxyOutcome outcome = x == null ? ProxyOutcome.UPSTREAM_FAILED : classify(x, failure);
        if (x != null && !x.finished()) {
            x.finish(System.nanoTime(), outcome, outcome.value());
        }
        if (proxyToClientResponse.isCommitted() || outcome == ProxyOutcome.CLIENT_DISCONNECT) {
            proxyToClientCallback.failed(failure);
            return;
        }
        int status = outcome == ProxyOutcome.UPSTREAM_TIMEOUT ? 504 : 502;
        String what = status == 504 ? "the engine did not answer in time"
                : "the engine cannot be reached or broke off its answer";
        // The engine's headers, if it sent any, are not the error's: the whole response starts anew.
        proxyToClientResponse.reset();
        proxyToClientResponse.getHeaders().put(HttpHeader.CONNECTION, "close");
        answer(proxyToClientResponse, proxyToClientCallback, status, error(what).put("upstream", upstream.get().name())
                .put("engine", meter.engine()).put("status", status));
    }

    static boolean unreachable(Throwable failure) {
        for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof NoRouteToHostException
                    || t instanceof UnresolvedAddressException) {
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
