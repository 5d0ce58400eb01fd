package io.tailwatch.core.http;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One blocking HTTP/1.1 exchange on its own connection ({@code Connection: close}), run entirely on
 * the calling thread: connect, send, read the status line and headers, then read the body as it
 * arrives (chunked, with a length, or up to the end of the connection).
 *
 * <p>Every blocking step takes an absolute deadline ({@link System#nanoTime()} based): the socket's
 * read timeout is set to what is left before each read, so a server that stalls mid-stream is
 * noticed at the deadline, not after a per-read idle time. The JDK offers two clients, and neither
 * fits a daemon that must stay small: {@code java.net.http.HttpClient} initialises TLS (its default
 * SSL context, the CA store and about 800 classes, some 10 MiB resident) even for plain-HTTP
 * exchanges, and {@code HttpURLConnection}'s {@code disconnect()} waits for a blocked chunked read to
 * return, so it cannot cut a stalled stream at a deadline. TLS is loaded here only for an
 * {@code https} URL.
 *
 * <p>A host name is looked up when the exchange starts, inside its connect budget and deadline, on a
 * small shared pool of lookup threads ({@link #MAX_LOOKUPS}): the JDK's lookup cannot be interrupted,
 * so a resolver that never answers holds one of those threads, never the caller, and {@link #close}
 * ends the wait at once. An IP literal (the usual loopback engine URL) needs no lookup and no thread.
 *
 * <p>Bounds: status line and each header line at most 8 KiB, at most 100 headers, chunk-size lines
 * at most 8 KiB. Faults surface as exceptions a caller can classify: {@link java.net.ConnectException}
 * (refused), {@link ConnectTimeout}, {@link DeadlineExceeded}, {@link ProtocolException} (not HTTP,
 * or malformed framing) and other {@link IOException}s (the connection broke).
 */
public final class HttpExchange implements Closeable {
    static final int MAX_LINE = 8 * 1024;
    static final int MAX_HEADERS = 100;
    /**
     * Name lookups in flight at once, across all exchanges. Each holds a thread until the system's
     * resolver returns; past this many a further lookup fails at once instead of starting a thread.
     */
    static final int MAX_LOOKUPS = 4;

    /** Looks up the address of a host name; it may block for as long as the system's resolver does. */
    @FunctionalInterface
    public interface Resolver {
        /** The JVM's resolver (its cache, /etc/hosts, DNS). */
        Resolver SYSTEM = InetAddress::getByName;

        InetAddress resolve(String host) throws UnknownHostException;
    }

    /** The lookup threads, made on the first name lookup; idle ones end after 30 s. */
    private static final class Lookups {
        static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(0, MAX_LOOKUPS, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "tailwatch-resolve");
                    t.setDaemon(true);
                    return t;
                });
    }

    /** Name lookups holding a lookup thread now (returned or not to the exchange that asked). */
    static int lookupsInFlight() {
        return Lookups.POOL.getActiveCount();
    }

    /** An IPv4 dotted quad, which InetAddress parses without a lookup (an IPv6 literal has a ':'). */
    private static final Pattern IPV4_LITERAL = Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");

    /** The connection was not established within the connect timeout. */
    public static final class ConnectTimeout extends SocketTimeoutException {
        ConnectTimeout(String message) {
            super(message);
        }
    }

    /** The deadline passed while waiting for the server. */
    public static final class DeadlineExceeded extends SocketTimeoutException {
        DeadlineExceeded(String message) {
            super(message);
        }
    }

    private enum Framing { LENGTH, CHUNKED, UNTIL_CLOSE, NONE }

    private volatile Socket socket;  // raw, or the TLS socket over it
    private InputStream in;
    private final byte[] buf = new byte[8192];
    private int pos;
    private int lim;
    private int status;
    private String reason = "";
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Framing framing;
    private long remaining;      // LENGTH: bytes of body left; CHUNKED: bytes left in the current chunk
    private boolean chunkedDone;
    private boolean eof;

    /** Where to connect, checked; the socket exists (unconnected) so that {@link #close} can stop any step. */
    private final URI uri;
    private final String host;       // as in the URL (IPv6 in brackets), for the Host header
    private final String bareHost;   // for the socket
    private final int port;
    /** Looks the host up when the exchange starts, within its deadline. */
    private final Resolver resolver;
    /** The lookup in flight, so that {@link #close} can end the wait for it. */
    private volatile Future<InetAddress> lookup;
    private final boolean tls;
    private final SSLSocketFactory tlsFactory;
    private final Socket raw = new Socket();
    private volatile boolean closed;
    /** The whole request (head and body), encoded before the exchange starts. */
    private final byte[] request;
    /**
     * {@link System#nanoTime()} when the first byte of the response came off the socket, and when the
     * latest read of the socket returned (every byte not yet handed out arrived with it); -1 before.
     */
    private long responseAt = -1;
    private long lastReadAt = -1;

    private HttpExchange(URI uri, SSLSocketFactory tlsFactory, String method, Map<String, String> headers, byte[] body,
                         Resolver resolver) throws ProtocolException {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        this.tls = scheme.equals("https");
        if (!tls && !scheme.equals("http")) {
            throw new ProtocolException("unsupported URL scheme '" + uri.getScheme() + "' (http or https)");
        }
        this.host = uri.getHost();
        if (host == null) {
            throw new ProtocolException("URL has no host: " + uri);
        }
        this.uri = uri;
        this.bareHost = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        this.port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
        this.tlsFactory = tlsFactory;
        this.resolver = resolver;
        this.request = encodeRequest(uri, host, port, tls, method, headers, body);
    }

    /**
     * Connects to {@code uri}, sends the request and reads the response head, all before
     * {@code deadlineNanos} (and the connect within {@code connectTimeoutMillis}). {@code headers}
     * are sent as given, after Host, User-Agent, Content-Length and Connection.
     */
    public static HttpExchange send(URI uri, String method, Map<String, String> headers, byte[] body,
                                    int connectTimeoutMillis, long deadlineNanos) throws IOException {
        return send(uri, method, headers, body, connectTimeoutMillis, deadlineNanos, null);
    }

    /** As above; {@code tlsFactory} null means the JVM's default (its trust store, hostname checked). */
    public static HttpExchange send(URI uri, String method, Map<String, String> headers, byte[] body,
                             int connectTimeoutMillis, long deadlineNanos, SSLSocketFactory tlsFactory)
            throws IOException {
        HttpExchange x = prepare(uri, tlsFactory, method, headers, body);
        x.start(connectTimeoutMillis, deadlineNanos);
        return x;
    }

    /**
     * An exchange not yet started, its request already encoded (so that a caller timing the exchange
     * times the network and the server, not the encoding): {@link #start} runs it; {@link #close} from
     * another thread stops it at any step (connect, TLS handshake, waiting for the head or the body).
     * A header that would smuggle a line break is an IllegalArgumentException here.
     */
    static HttpExchange prepare(URI uri, SSLSocketFactory tlsFactory, String method, Map<String, String> headers,
                                byte[] body) throws ProtocolException {
        return prepare(uri, tlsFactory, method, headers, body, Resolver.SYSTEM);
    }

    /** As above, looking host names up with {@code resolver}. */
    static HttpExchange prepare(URI uri, SSLSocketFactory tlsFactory, String method, Map<String, String> headers,
                                byte[] body, Resolver resolver) throws ProtocolException {
        return new HttpExchange(uri, tlsFactory, method, headers, body, resolver);
    }

    /**
     * Look up, connect, send, read the response head; on any failure the connection is closed. The
     * lookup and the connect share the connect timeout, and both end at the deadline.
     */
    void start(int connectTimeoutMillis, long deadlineNanos) throws IOException {
        try {
            long begun = System.nanoTime();
            long connectBy = begun + connectTimeoutMillis * 1_000_000L;
            boolean deadlineFirst = deadlineNanos - connectBy < 0;
            long stopAt = deadlineFirst ? deadlineNanos : connectBy;
            InetSocketAddress address = new InetSocketAddress(lookUp(stopAt, deadlineFirst, connectTimeoutMillis), port);
            raw.setTcpNoDelay(true);
            int connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, millisLeft(stopAt)));
            try {
                raw.connect(address, connectMillis);
            } catch (SocketTimeoutException e) {
                if (deadlineFirst) {
                    throw new DeadlineExceeded("no connection to " + bareHost + ":" + port + " before the deadline");
                }
                throw new ConnectTimeout("no connection to " + bareHost + ":" + port + " within " + connectTimeoutMillis + " ms");
            }
            Socket s = raw;
            if (tls) {
                s = startTls(tlsFactory == null ? (SSLSocketFactory) SSLSocketFactory.getDefault() : tlsFactory,
                        raw, bareHost, port, deadlineNanos);
            }
            socket = s;
            if (closed) {
                throw new java.net.SocketException("exchange closed");
            }
            in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            readHead(deadlineNanos);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The host's address, looked up before {@code stopAt} (an IP literal at once, on this thread). */
    private InetAddress lookUp(long stopAt, boolean deadlineFirst, int connectTimeoutMillis) throws IOException {
        if (isLiteral(bareHost)) {
            return InetAddress.getByName(bareHost);
        }
        Future<InetAddress> f = submit(resolver, bareHost);
        lookup = f;
        try {
            if (closed) {
                throw new java.net.SocketException("exchange closed");
            }
            return await(f, bareHost, stopAt - System.nanoTime(), () -> deadlineFirst
                    ? new DeadlineExceeded("no address for " + bareHost + " before the deadline")
                    : new ConnectTimeout("no address for " + bareHost + " within " + connectTimeoutMillis + " ms"));
        } finally {
            f.cancel(true);
            lookup = null;
        }
    }

    /**
     * The address of {@code host} (a URL's host without brackets), looked up by the system's resolver on the shared
     * lookup threads within {@code timeoutMillis}, or at once on this thread for an IP literal. A lookup that does
     * not answer in time fails with {@link ConnectTimeout}; the caller's thread is never held longer.
     */
    public static InetAddress lookUp(String host, long timeoutMillis) throws IOException {
        if (isLiteral(host)) {
            return InetAddress.getByName(host);
        }
        return await(submit(Resolver.SYSTEM, host), host, TimeUnit.MILLISECONDS.toNanos(timeoutMillis),
                () -> new ConnectTimeout("no address for " + host + " within " + timeoutMillis + " ms"));
    }

    private static boolean isLiteral(String host) {
        return host.indexOf(':') >= 0 || IPV4_LITERAL.matcher(host).matches();
    }

    private static Future<InetAddress> submit(Resolver resolver, String host) throws UnknownHostException {
        try {
            return Lookups.POOL.submit(() -> resolver.resolve(host));
        } catch (RejectedExecutionException e) {
            throw new UnknownHostException(host + ": not looked up, " + MAX_LOOKUPS
                    + " earlier lookups have not returned (the system's resolver is not answering)");
        }
    }

    /** Waits {@code leftNanos} at most for a lookup, which is cancelled whatever the outcome. */
    private static InetAddress await(Future<InetAddress> f, String host, long leftNanos,
                                     java.util.function.Supplier<SocketTimeoutException> late) throws IOException {
        try {
            return f.get(Math.max(0, leftNanos), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw late.get();
        } catch (CancellationException e) {
            throw new java.net.SocketException("exchange closed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted looking up " + host);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof UnknownHostException u) {
                throw u;
            }
            throw new UnknownHostException(host + ": " + c);
        } finally {
            f.cancel(true);
        }
    }

    private static Socket startTls(SSLSocketFactory factory, Socket plain, String host, int port, long deadlineNanos)
            throws IOException {
        SSLSocket s = (SSLSocket) factory.createSocket(plain, host, port, true);
        SSLParameters p = s.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        s.setSSLParameters(p);
        s.setSoTimeout(timeoutFor(deadlineNanos));
        try {
            s.startHandshake();
        } catch (SocketTimeoutException e) {
            throw new DeadlineExceeded("TLS handshake with " + host + ":" + port + " not complete before the deadline");
        }
        return s;
    }

    private static byte[] encodeRequest(URI uri, String host, int port, boolean tls, String method,
                                        Map<String, String> extra, byte[] body) {
        String target = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) {
            target += "?" + uri.getRawQuery();
        }
        boolean defaultPort = port == (tls ? 443 : 80);
        StringBuilder head = new StringBuilder(256)
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append(defaultPort ? "" : ":" + port).append("\r\n")
                .append("User-Agent: tailwatch\r\n")
                .append("Connection: close\r\n");
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        for (Map.Entry<String, String> h : extra.entrySet()) {
            checkHeader(h.getKey(), h.getValue());
            head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        head.append("\r\n");
        byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        if (body == null || body.length == 0) {
            return headBytes;
        }
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return all;
    }

    /** Header names and values must not smuggle in line breaks (the value may be a configured key). */
    private static void checkHeader(String name, String value) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 127 || c == ':') {
                throw new IllegalArgumentException("illegal character in header name '" + name + "'");
            }
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new IllegalArgumentException("illegal line break in the value of header " + name);
            }
        }
    }

    private void readHead(long deadlineNanos) throws IOException {
        while (true) {
            String statusLine = readLine(deadlineNanos, "status line");
            if (statusLine == null) {
                throw new IOException("connection closed before the response headers");
            }
            parseStatus(statusLine);
            headers.clear();
            int n = 0;
            while (true) {
                String line = readLine(deadlineNanos, "header");
                if (line == null) {
                    throw new IOException("connection closed inside the response headers");
                }
                if (line.isEmpty()) {
                    break;
                }
                if (++n > MAX_HEADERS) {
                    throw new ProtocolException("more than " + MAX_HEADERS + " response headers");
                }
                int colon = line.indexOf(':');
                if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t') {
                    throw new ProtocolException("malformed response header line: " + clip(line));
                }
                String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = line.substring(colon + 1).trim();
                headers.merge(name, value, (a, b) -> a + ", " + b);
            }
            if (status >= 100 && status < 200 && status != 101) {
                continue; // interim response (100 Continue, 103 Early Hints): the real one follows
            }
            break;
        }
        chooseFraming();
    }

    private void parseStatus(String line) throws ProtocolException {
        // HTTP/1.x SP 3DIGIT [SP reason]
        if (!line.startsWith("HTTP/1.") || line.length() < 12 || line.charAt(8) != ' ') {
            throw new ProtocolException("not an HTTP/1.x status line: " + clip(line));
        }
        String code = line.substring(9, 12);
        if (!code.chars().allMatch(Character::isDigit) || (line.length() > 12 && line.charAt(12) != ' ')) {
            throw new ProtocolException("bad status code in: " + clip(line));
        }
        status = Integer.parseInt(code);
        reason = line.length() > 13 ? line.substring(13) : "";
    }

    private void chooseFraming() throws ProtocolException {
        String te = headers.get("transfer-encoding");
        String cl = headers.get("content-length");
        if (status == 204 || status == 304) {
            framing = Framing.NONE;
        } else if (te != null && te.toLowerCase(Locale.ROOT).endsWith("chunked")) {
            framing = Framing.CHUNKED;
            remaining = 0;
        } else if (te != null) {
            framing = Framing.UNTIL_CLOSE; // another coding last: the body ends with the connection
        } else if (cl != null) {
            String first = cl.split(",")[0].trim();
            try {
                remaining = Long.parseLong(first);
            } catch (NumberFormatException e) {
                throw new ProtocolException("bad Content-Length: " + clip(cl));
            }
            if (remaining < 0) {
                throw new ProtocolException("negative Content-Length: " + remaining);
            }
            framing = remaining == 0 ? Framing.NONE : Framing.LENGTH;
        } else {
            framing = Framing.UNTIL_CLOSE;
        }
        if (framing == Framing.NONE) {
            eof = true;
        }
    }

    /**
     * {@link System#nanoTime()} when the first byte of the response (its status line) came off the
     * socket: the moment curl's trace reports the first response header, before the head is parsed.
     */
    public long responseAt() {
        return responseAt;
    }

    /**
     * {@link System#nanoTime()} when the bytes the latest {@link #read} returned came off the socket.
     * Bytes are handed out of one socket read by several calls (a chunk at a time), and all of them
     * arrived then, whatever the parsing in between took.
     */
    public long lastReadAt() {
        return lastReadAt;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    /** The value of a response header (name case-insensitive; repeated headers joined with ", "), or null. */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /**
     * Reads body bytes into {@code dst}: returns as soon as some arrived (at most {@code dst.length}),
     * -1 at the end of the body, or throws {@link DeadlineExceeded} when none came before
     * {@code deadlineNanos}. A body cut short (before its length or its last chunk) is an IOException.
     */
    public int read(byte[] dst, long deadlineNanos) throws IOException {
        if (eof) {
            return -1;
        }
        switch (framing) {
            case LENGTH: {
                if (!fill(deadlineNanos)) {
                    throw new IOException("connection closed with " + remaining + " bytes of the body missing");
                }
                int n = (int) Math.min(Math.min(dst.length, lim - pos), remaining);
                take(dst, n);
                remaining -= n;
                if (remaining == 0) {
                    eof = true;
                }
                return n;
            }
            case CHUNKED: {
                if (remaining == 0) {
                    nextChunk(deadlineNanos);
                    if (chunkedDone) {
                        eof = true;
                        return -1;
                    }
                }
                if (!fill(deadlineNanos)) {
                    throw new IOException("connection closed inside a chunk");
                }
                int n = (int) Math.min(Math.min(dst.length, lim - pos), remaining);
                take(dst, n);
                remaining -= n;
                if (remaining == 0) {
                    expectCrlf(deadlineNanos);
                }
                return n;
            }
            case UNTIL_CLOSE: {
                if (!fill(deadlineNanos)) {
                    eof = true;
                    return -1;
                }
                int n = Math.min(dst.length, lim - pos);
                take(dst, n);
                return n;
            }
            default:
                eof = true;
                return -1;
        }
    }

    /**
     * Reads the rest of the body, at most {@code max} bytes (more is {@link BodyStream.TooLarge}, thrown
     * as soon as the bound is passed), before the deadline.
     */
    public byte[] readBody(int max, long deadlineNanos) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(Math.min(max, 8192));
        byte[] tmp = new byte[8192];
        int n;
        while ((n = read(tmp, deadlineNanos)) >= 0) {
            if (out.size() + n > max) {
                throw new BodyStream.TooLarge(max);
            }
            out.write(tmp, 0, n);
        }
        return out.toByteArray();
    }

    private void nextChunk(long deadlineNanos) throws IOException {
        String line = readLine(deadlineNanos, "chunk size");
        if (line == null) {
            throw new IOException("connection closed before the next chunk");
        }
        int semi = line.indexOf(';');
        String hex = (semi >= 0 ? line.substring(0, semi) : line).trim();
        long size;
        try {
            if (hex.isEmpty() || hex.length() > 15) {
                throw new NumberFormatException();
            }
            size = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new ProtocolException("bad chunk size line: " + clip(line));
        }
        if (size < 0) {
            throw new ProtocolException("bad chunk size line: " + clip(line));
        }
        if (size == 0) {
            // Trailer section, then the end.
            int n = 0;
            while (true) {
                String t = readLine(deadlineNanos, "trailer");
                if (t == null || t.isEmpty()) {
                    break;
                }
                if (++n > MAX_HEADERS) {
                    throw new ProtocolException("more than " + MAX_HEADERS + " trailer lines");
                }
            }
            chunkedDone = true;
            return;
        }
        remaining = size;
    }

    private void expectCrlf(long deadlineNanos) throws IOException {
        String rest = readLine(deadlineNanos, "chunk end");
        if (rest == null) {
            throw new IOException("connection closed after a chunk");
        }
        if (!rest.isEmpty()) {
            throw new ProtocolException("chunk longer than its declared size");
        }
    }

    private void take(byte[] dst, int n) {
        System.arraycopy(buf, pos, dst, 0, n);
        pos += n;
    }

    /** At least one unread byte in the buffer, or false at the end of the connection. */
    private boolean fill(long deadlineNanos) throws IOException {
        if (pos < lim) {
            return true;
        }
        socket.setSoTimeout(timeoutFor(deadlineNanos));
        int n;
        try {
            n = in.read(buf, 0, buf.length);
        } catch (SocketTimeoutException e) {
            throw new DeadlineExceeded("no data before the deadline");
        }
        long now = System.nanoTime();
        if (n < 0) {
            return false;
        }
        if (responseAt < 0) {
            responseAt = now;
        }
        lastReadAt = now;
        pos = 0;
        lim = n;
        return true;
    }

    /** One CRLF- (or LF-) terminated line in ISO-8859-1 without its terminator; null at end of stream before any byte. */
    private String readLine(long deadlineNanos, String what) throws IOException {
        StringBuilder sb = null;
        while (true) {
            if (!fill(deadlineNanos)) {
                if (sb == null) {
                    return null;
                }
                throw new IOException("connection closed inside a " + what + " line");
            }
            int start = pos;
            while (pos < lim && buf[pos] != '\n') {
                pos++;
            }
            int len = pos - start;
            if (sb == null) {
                sb = new StringBuilder(Math.min(len + 16, 256));
            }
            sb.append(new String(buf, start, len, StandardCharsets.ISO_8859_1));
            if (sb.length() > MAX_LINE) {
                throw new ProtocolException(what + " line longer than " + MAX_LINE + " bytes");
            }
            if (pos < lim) {
                pos++; // the LF
                int end = sb.length();
                if (end > 0 && sb.charAt(end - 1) == '\r') {
                    sb.setLength(end - 1);
                }
                return sb.toString();
            }
        }
    }

    private static long millisLeft(long deadlineNanos) {
        return (deadlineNanos - System.nanoTime()) / 1_000_000L;
    }

    /** Read timeout for the time left (at least 1 ms: 0 would mean forever); throws when none is left. */
    private static int timeoutFor(long deadlineNanos) throws DeadlineExceeded {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new DeadlineExceeded("deadline passed");
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (left + 999_999L) / 1_000_000L));
    }

    private static String clip(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }

    /** Closes the connection; from another thread, this ends a blocked step at once with an IOException. */
    @Override
    public void close() {
        closed = true;
        Future<InetAddress> f = lookup;
        if (f != null) {
            f.cancel(true);
        }
        try {
            Socket s = socket;
            if (s != null && s != raw) {
                s.close();
            }
            raw.close();
        } catch (IOException ignored) {
            // nothing left to do with a connection that will not close cleanly
        }
    }
}
