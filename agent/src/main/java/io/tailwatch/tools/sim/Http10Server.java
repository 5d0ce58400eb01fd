package io.tailwatch.tools.sim;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * An HTTP/1.0 server as Python's {@code http.server} is one (what mlx_lm.server runs on): one request per
 * connection, answered with an {@code HTTP/1.0} status line and closed; a response without a length (a
 * stream) is delimited by the close alone, so a cut stream and a finished one end alike. Each connection
 * is handled as a {@link HttpExchange}, so the same wire code serves both servers. Bounded: request lines and
 * headers at 16 KiB, bodies by the wire's own read bound.
 */
final class Http10Server {
    private static final int MAX_HEAD = 16 * 1024;
    private final ServerSocket socket;
    private final ExecutorService executor;
    private volatile boolean closed;

    private Http10Server(ServerSocket socket, ExecutorService executor) {
        this.socket = socket;
        this.executor = executor;
    }

    static Http10Server start(String host, int port, ExecutorService executor, Consumer<HttpExchange> handler)
            throws IOException {
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(new InetSocketAddress(host, port), 64);
        Http10Server s = new Http10Server(ss, executor);
        Thread t = new Thread(() -> s.acceptLoop(handler), "tailwatch-sim-http10");
        t.setDaemon(true);
        t.start();
        return s;
    }

    int port() {
        return socket.getLocalPort();
    }

    void close() {
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private void acceptLoop(Consumer<HttpExchange> handler) {
        while (!closed) {
            Socket c;
            try {
                c = socket.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                executor.execute(() -> serve(c, handler));
            } catch (RuntimeException e) {
                closeQuietly(c);
            }
        }
    }

    private void serve(Socket c, Consumer<HttpExchange> handler) {
        try (c) {
            c.setTcpNoDelay(true);
            BufferedInputStream in = new BufferedInputStream(c.getInputStream());
            String requestLine = line(in);
            String[] parts = requestLine.split(" ");
            if (parts.length != 3) {
                return;
            }
            Headers headers = new Headers();
            int headBytes = requestLine.length();
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                headBytes += h.length();
                if (headBytes > MAX_HEAD) {
                    return;
                }
                int colon = h.indexOf(':');
                if (colon > 0) {
                    headers.add(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
                }
            }
            long length = 0;
            String cl = headers.getFirst("Content-Length");
            if (cl != null) {
                length = Long.parseLong(cl.trim());
            }
            Exchange x = new Exchange(c, parts[0], URI.create(parts[1]), headers, new BoundedInput(in, length));
            handler.accept(x);
            x.getResponseBody().flush();
        } catch (IOException | RuntimeException e) {
            // The client went away, or sent something that is not a request: the connection just closes.
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int ch = in.read(); ch != '\n'; ch = in.read()) {
            if (ch < 0) {
                throw new IOException("connection closed in the request head");
            }
            if (b.size() > MAX_HEAD) {
                throw new IOException("request head over " + MAX_HEAD + " bytes");
            }
            if (ch != '\r') {
                b.write(ch);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static void closeQuietly(Socket c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    /** The request body: exactly Content-Length bytes of the connection. */
    private static final class BoundedInput extends InputStream {
        private final InputStream in;
        private long left;

        BoundedInput(InputStream in, long left) {
            this.in = in;
            this.left = left;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }
    }

    private static final class Exchange extends HttpExchange {
        private final Socket socket;
        private final String method;
        private final URI uri;
        private final Headers requestHeaders;
        private final Headers responseHeaders = new Headers();
        private InputStream body;
        private OutputStream out;
        private int code = -1;

        Exchange(Socket socket, String method, URI uri, Headers requestHeaders, InputStream body) throws IOException {
            this.socket = socket;
            this.method = method;
            this.uri = uri;
            this.requestHeaders = requestHeaders;
            this.body = body;
            this.out = new BufferedOutputStream(socket.getOutputStream(), 8192);
        }

        @Override
        public Headers getRequestHeaders() {
            return requestHeaders;
        }

        @Override
        public Headers getResponseHeaders() {
            return responseHeaders;
        }

        @Override
        public URI getRequestURI() {
            return uri;
        }

        @Override
        public String getRequestMethod() {
            return method;
        }

        @Override
        public HttpContext getHttpContext() {
            return null;
        }

        @Override
        public void close() {
            try {
                out.flush();
            } catch (IOException ignored) {
                // the client is gone
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        @Override
        public InputStream getRequestBody() {
            return body;
        }

        @Override
        public OutputStream getResponseBody() {
            return out;
        }

        /** As http.server: the status line, Server and Date, the handler's headers; a length only when given (> 0). */
        @Override
        public void sendResponseHeaders(int rCode, long responseLength) throws IOException {
            if (code >= 0) {
                throw new IOException("headers already sent");
            }
            code = rCode;
            StringBuilder h = new StringBuilder("HTTP/1.0 ").append(rCode).append(' ').append(reason(rCode)).append("\r\n");
            h.append("Server: BaseHTTP/0.6 Python/3.12.8\r\n");
            h.append("Date: ").append(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)))
                    .append("\r\n");
            for (Map.Entry<String, List<String>> e : responseHeaders.entrySet()) {
                for (String v : e.getValue()) {
                    h.append(e.getKey()).append(": ").append(v).append("\r\n");
                }
            }
            if (responseLength > 0) {
                h.append("Content-Length: ").append(responseLength).append("\r\n");
            }
            h.append("\r\n");
            out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            if (responseLength < 0) {
                out = OutputStream.nullOutputStream();
            }
        }

        private static String reason(int code) {
            return switch (code) {
                case 200 -> "OK";
                case 400 -> "Bad Request";
                case 404 -> "Not Found";
                case 405 -> "Method Not Allowed";
                case 500 -> "Internal Server Error";
                case 503 -> "Service Unavailable";
                default -> "Status";
            };
        }

        @Override
        public InetSocketAddress getRemoteAddress() {
            return (InetSocketAddress) socket.getRemoteSocketAddress();
        }

        @Override
        public int getResponseCode() {
            return code;
        }

        @Override
        public InetSocketAddress getLocalAddress() {
            return (InetSocketAddress) socket.getLocalSocketAddress();
        }

        @Override
        public String getProtocol() {
            return "HTTP/1.0";
        }

        @Override
        public Object getAttribute(String name) {
            return null;
        }

        @Override
        public void setAttribute(String name, Object value) {
            // no attributes
        }

        @Override
        public void setStreams(InputStream i, OutputStream o) {
            if (i != null) {
                body = i;
            }
            if (o != null) {
                out = o;
            }
        }

        @Override
        public HttpPrincipal getPrincipal() {
            return null;
        }
    }
}
