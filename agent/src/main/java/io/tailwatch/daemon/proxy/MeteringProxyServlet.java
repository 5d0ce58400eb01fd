package io.tailwatch.daemon.proxy;

import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.eclipse.jetty.client.DuplexConnectionPool;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.ValidatingConnectionPool;
import org.eclipse.jetty.client.api.Request;
import org.eclipse.jetty.client.api.Response;
import org.eclipse.jetty.client.http.HttpClientTransportOverHTTP;
import org.eclipse.jetty.client.util.BytesRequestContent;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.ClientConnector;
import org.eclipse.jetty.proxy.AsyncProxyServlet;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's reverse proxy with the metering hooks: the request body is read and sent on asynchronously
 * (AsyncProxyServlet), every chunk of the answer is written and flushed to the client as it arrives, without
 * blocking ({@link ChunkWriter}), and then read by the exchange's {@link io.tailwatch.core.probe.StreamTap}.
 * The engine side's reads run in its selector's thread ({@link SelectorInlineExecutor}), so a chunk goes from
 * the engine's socket to the client's in one thread. A client write that fails (the client left) fails the
 * chunk's callback, which aborts the request to the engine at once, so a serial engine stops generating for
 * nobody. Headers are Jetty's: hop-by-hop ones removed, {@code X-Forwarded-*} and {@code Via} added.
 */
final class MeteringProxyServlet extends AsyncProxyServlet {
    private static final String EXCHANGE = MeteringProxyServlet.class.getName() + ".exchange";
    private static final String WRITER = MeteringProxyServlet.class.getName() + ".writer";
    /** Where requests go now, and the key the engine expects (or null); swapped by a reconfigure. */
    record Upstream(URI base, String apiKey, long connectTimeoutMillis, long connectionRestMillis) {
        String target(HttpServletRequest r) {
            String path = r.getRequestURI();
            String query = r.getQueryString();
            String b = base.toString();
            if (b.endsWith("/")) {
                b = b.substring(0, b.length() - 1);
            }
            return b + path + (query == null ? "" : "?" + query);
        }

        String name() {
            return base.getScheme() + "://" + base.getHost() + (base.getPort() > 0 ? ":" + base.getPort() : "");
        }
    }

    private final Supplier<Upstream> upstream;
    private final ProxyMeter meter;
    private final Supplier<Lanes> lanes;
    private final ProxyGuard guard;

    MeteringProxyServlet(Supplier<Upstream> upstream, ProxyMeter meter, Supplier<Lanes> lanes, ProxyGuard guard) {
        this.upstream = upstream;
        this.meter = meter;
        this.lanes = lanes;
        this.guard = guard;
    }

    @Override
    protected HttpClient newHttpClient() {
        ClientConnector connector = new ClientConnector();
        connector.setSelectors(1);
        HttpClientTransportOverHTTP transport = new HttpClientTransportOverHTTP(connector);
        // A connection rests this long after an answer before it carries the next request (ProxyConfig's
        // connection_rest: llama.cpp's server closes without saying so; 0: none). A request that finds no rested
        // connection opens a new one. (A close later than this still fails the request sent on it: Jetty does
        // not send a POST again.)
        long rest = upstream.get().connectionRestMillis();
        transport.setConnectionPoolFactory(d -> rest > 0
                ? new ValidatingConnectionPool(d, d.getHttpClient().getMaxConnectionsPerDestination(), d,
                        d.getHttpClient().getScheduler(), rest)
                : new DuplexConnectionPool(d, d.getHttpClient().getMaxConnectionsPerDestination(), d));
        HttpClient client = new HttpClient(transport) {
            @Override
            public void setExecutor(java.util.concurrent.Executor executor) {
                // Jetty's proxy gives the client the server's pool; its tasks run as SelectorInlineExecutor says.
                super.setExecutor(executor == null || executor instanceof SelectorInlineExecutor ? executor
                        : new SelectorInlineExecutor(executor));
            }
        };
        client.setConnectTimeout(upstream.get().connectTimeoutMillis());
        // The client's own User-Agent goes through; the proxy adds none.
        client.setUserAgentField(null);
        return client;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
        long t0 = System.nanoTime();
        String refused = guard == null ? null : guard.refuse(request);
        String lane = lanes.get().laneOf(request);
        ProxyMeter.Exchange x = meter.begin(t0, lane, "POST".equals(request.getMethod()));
        if (refused != null) {
            response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
            response.setHeader("WWW-Authenticate", "Basic realm=\"tailwatch\", charset=\"UTF-8\"");
            writeJson(response, "{\"error\":\"unauthorized\",\"reason\":\"" + refused + "\"}");
            x.finish(System.nanoTime(), ProxyOutcome.REJECTED, null);
            return;
        }
        request.setAttribute(EXCHANGE, x);
        try {
            super.service(request, response);
        } catch (IOException | RuntimeException e) {
            // The request could not be read or passed on (its client is gone): it is counted, not left in flight.
            if (!x.finished()) {
                x.finish(System.nanoTime(), ProxyOutcome.CLIENT_DISCONNECT, "client_disconnect");
            }
            throw e;
        }
    }

    private static ProxyMeter.Exchange exchange(HttpServletRequest request) {
        return (ProxyMeter.Exchange) request.getAttribute(EXCHANGE);
    }

    /**
     * The engine said 100 Continue: Jetty starts reading the client's body on the client's executor, and that
     * start writes the client its own 100 Continue, a blocking write. Here that executor would run it in the
     * engine side's selector thread, which must never block; it runs in the pool instead.
     */
    @Override
    protected void onContinue(HttpServletRequest clientRequest, Request proxyRequest) {
        Executor executor = getHttpClient().getExecutor();
        Executor pool = executor instanceof SelectorInlineExecutor inline ? inline.pool() : executor;
        pool.execute(() -> super.onContinue(clientRequest, proxyRequest));
    }

    @Override
    protected String rewriteTarget(HttpServletRequest clientRequest) {
        return upstream.get().target(clientRequest);
    }

    @Override
    protected void addProxyHeaders(HttpServletRequest clientRequest, Request proxyRequest) {
        super.addProxyHeaders(clientRequest, proxyRequest);
        if (guard != null) {
            // The client's Basic credentials were for the proxy; the engine gets its own key, if it has one.
            Upstream u = upstream.get();
            proxyRequest.headers(h -> {
                h.remove(HttpHeader.AUTHORIZATION);
                if (u.apiKey() != null) {
                    h.put(HttpHeader.AUTHORIZATION, "Bearer " + u.apiKey());
                }
            });
        }
    }

    /**
     * A body that has fully arrived with the request's headers (most API calls: a few hundred bytes of JSON)
     * goes to the engine with the headers, in one write. Through the servlet's read listener it would be read in
     * a later dispatch, after the headers had been sent on their own. Only what is already buffered is taken
     * here, so no thread waits on a slow client; anything else streams as before.
     */
    @Override
    protected Request.Content proxyRequestContent(HttpServletRequest request, HttpServletResponse response,
                                                  Request proxyRequest) throws IOException {
        byte[] whole = bufferedBody(request);
        if (whole != null) {
            return new BytesRequestContent(request.getContentType(), whole);
        }
        return super.proxyRequestContent(request, response, proxyRequest);
    }

    /**
     * The whole body when its length is known, at most {@link EngineProxy#BUFFER_BYTES} and all of it already
     * read (in practice: in the connection's first read with the headers, 8 KiB, Jetty's input buffer); else null.
     */
    static byte[] bufferedBody(HttpServletRequest request) throws IOException {
        long length = request.getContentLengthLong();
        if (length <= 0 || length > EngineProxy.BUFFER_BYTES) {
            return null;
        }
        ServletInputStream in = request.getInputStream();
        if (in.available() < length) {
            return null;
        }
        byte[] body = new byte[(int) length];
        int n = 0;
        while (n < body.length && in.available() > 0) {
            int r = in.read(body, n, Math.min(in.available(), body.length - n));
            if (r < 0) {
                break;
            }
            n += r;
        }
        if (n != body.length) {
            throw new IOException("the request body ended after " + n + " of its " + length + " bytes");
        }
        return body;
    }

    @Override
    protected void onServerResponseHeaders(HttpServletRequest clientRequest, HttpServletResponse proxyResponse,
                                           Response serverResponse) {
        ProxyMeter.Exchange x = exchange(clientRequest);
        if (x != null) {
            x.headers(System.nanoTime(), serverResponse.getStatus(), serverResponse.getHeaders().get(HttpHeader.CONTENT_TYPE));
        }
        super.onServerResponseHeaders(clientRequest, proxyResponse, serverResponse);
        // The writer is made now, with the headers: the container's first call to it (which setting a write listener
        // dispatches to another thread) happens while the engine makes its first chunk, and that chunk is then
        // written at once in the thread that read it.
        try {
            writer(clientRequest, proxyResponse, serverResponse);
        } catch (IOException | RuntimeException e) {
            // The answer cannot be written to this client (its response is already done): the engine request ends.
            serverResponse.abort(e);
        }
    }

    private ChunkWriter writer(HttpServletRequest request, HttpServletResponse response, Response engineResponse)
            throws IOException {
        ChunkWriter writer = (ChunkWriter) request.getAttribute(WRITER);
        if (writer == null) {
            ServletOutputStream out = response.getOutputStream();
            writer = new ChunkWriter(out, exchange(request), engineResponse);
            // Kept only once it is the listener: a writer that is not would write in blocking mode.
            out.setWriteListener(writer);
            request.setAttribute(WRITER, writer);
        }
        return writer;
    }

    @Override
    protected void onResponseContent(HttpServletRequest request, HttpServletResponse response, Response proxyResponse,
                                     byte[] buffer, int offset, int length, Callback callback) {
        long now = System.nanoTime();
        ChunkWriter writer = (ChunkWriter) request.getAttribute(WRITER);
        try {
            writer = writer(request, response, proxyResponse);
            writer.offer(buffer, offset, length, now, callback);
            writer.onWritePossible();
        } catch (Throwable t) {
            if (writer != null) {
                writer.fail(t);
            } else {
                ProxyMeter.Exchange x = exchange(request);
                if (x != null) {
                    x.clientGone = true;
                }
                callback.failed(t);
            }
        }
    }

    @Override
    protected void onProxyResponseSuccess(HttpServletRequest clientRequest, HttpServletResponse proxyResponse,
                                          Response serverResponse) {
        ProxyMeter.Exchange x = exchange(clientRequest);
        super.onProxyResponseSuccess(clientRequest, proxyResponse, serverResponse);
        if (x != null) {
            long end = System.nanoTime();
            if (x.tap != null) {
                x.tap.end(end);
            }
            int status = serverResponse.getStatus();
            String streamError = x.tap == null ? null : x.tap.streamError();
            if (status >= 400) {
                x.finish(end, ProxyOutcome.HTTP_ERROR, "http_" + status);
            } else if ("stream_error".equals(streamError)) {
                x.finish(end, ProxyOutcome.STREAM_ERROR, streamError);
            } else {
                x.finish(end, ProxyOutcome.OK, null);
            }
        }
    }

    /**
     * Jetty calls this when the request body could not be passed on: the client's side failed, or the
     * engine's (a refused connection fails the body too); the engine's failures are answered 502 here.
     */
    @Override
    protected void onClientRequestFailure(HttpServletRequest clientRequest, Request proxyRequest,
                                          HttpServletResponse proxyResponse, Throwable failure) {
        ProxyMeter.Exchange x = exchange(clientRequest);
        if (x != null && x.headersAt < 0 && unreachable(failure)) {
            proxyRequest.abort(failure);
            x.finish(System.nanoTime(), ProxyOutcome.UPSTREAM_UNREACHABLE, ProxyOutcome.UPSTREAM_UNREACHABLE.value());
            sendProxyResponseError(clientRequest, proxyResponse, HttpServletResponse.SC_BAD_GATEWAY);
            return;
        }
        if (x != null) {
            x.clientGone = true;
        }
        super.onClientRequestFailure(clientRequest, proxyRequest, proxyResponse, failure);
        if (x != null && !x.finished() && proxyResponse.isCommitted()) {
            x.finish(System.nanoTime(), ProxyOutcome.CLIENT_DISCONNECT, "client_disconnect");
        }
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

    @Override
    protected void onProxyResponseFailure(HttpServletRequest clientRequest, HttpServletResponse proxyResponse,
                                          Response serverResponse, Throwable failure) {
        ProxyMeter.Exchange x = exchange(clientRequest);
        ProxyOutcome outcome = x == null ? ProxyOutcome.UPSTREAM_FAILED : classify(x, failure);
        if (x != null) {
            x.finish(System.nanoTime(), outcome, outcome.value());
        }
        super.onProxyResponseFailure(clientRequest, proxyResponse, serverResponse, failure);
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

    /** A short JSON body naming the engine the proxy could not reach, instead of Jetty's HTML page. */
    @Override
    protected void sendProxyResponseError(HttpServletRequest clientRequest, HttpServletResponse proxyResponse, int status) {
        // Under the writer's lock, if the answer has one: a chunk it is writing is either out (the answer is
        // committed, and is aborted instead) or not begun.
        ChunkWriter writer = (ChunkWriter) clientRequest.getAttribute(WRITER);
        if (writer == null) {
            writeError(clientRequest, proxyResponse, status);
            return;
        }
        synchronized (writer) {
            writeError(clientRequest, proxyResponse, status);
        }
    }

    private void writeError(HttpServletRequest clientRequest, HttpServletResponse proxyResponse, int status) {
        try {
            if (!proxyResponse.isCommitted()) {
                // The engine's headers, if it sent any, are not the error's: the whole response starts anew.
                proxyResponse.reset();
                proxyResponse.setStatus(status);
                proxyResponse.setHeader(HttpHeader.CONNECTION.asString(), "close");
                String what = switch (status) {
                    case HttpServletResponse.SC_GATEWAY_TIMEOUT -> "the engine did not answer in time";
                    case HttpServletResponse.SC_BAD_GATEWAY -> "the engine cannot be reached or broke off its answer";
                    default -> "the request could not be passed on to the engine";
                };
                writeJson(proxyResponse, "{\"error\":\"" + what + "\",\"upstream\":\"" + jsonEscape(upstream.get().name())
                        + "\",\"engine\":\"" + jsonEscape(meter.engine()) + "\",\"status\":" + status + "}");
            }
        } catch (IOException | RuntimeException e) {
            // the client is gone too
        } finally {
            if (clientRequest.isAsyncStarted()) {
                clientRequest.getAsyncContext().complete();
            }
        }
    }

    private static void writeJson(HttpServletResponse response, String json) throws IOException {
        byte[] body = (json + "\n").getBytes(StandardCharsets.UTF_8);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    static String jsonEscape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
