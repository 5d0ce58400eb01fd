package io.tailwatch.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;

/**
 * An engine that keeps what it saw: the SHA-256 of every request body it read and of every response body
 * it sent, the headers of each request, the remote port (one connection or several) and when each chunk
 * of a stream was handed to its socket (System.nanoTime, comparable with a client in the same JVM).
 * Streams are deterministic: {@code /sse?n=N&gap_ms=G} sends N chat chunks G ms apart, a usage chunk and
 * [DONE]; {@code /ndjson} the same in Ollama's lines; {@code /json} one answer; {@code /upload} reads any
 * body and answers its hash; {@code /broken} sends the headers of a stream and then drops the connection,
 * before any of its body.
 */
public final class RecordingEngine implements AutoCloseable {
    static {
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    /** One request as the engine saw it. */
    public record Seen(String path, Map<String, String> headers, int remotePort, String requestSha, long requestBytes,
                       String responseSha, List<Long> chunkSentAt) {
    }

    private final HttpServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Map<String, Seen> byId = new ConcurrentHashMap<>();

    private RecordingEngine(HttpServer server) {
        this.server = server;
    }

    public static RecordingEngine start() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        s.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "recording-engine");
            t.setDaemon(true);
            return t;
        }));
        RecordingEngine e = new RecordingEngine(s);
        s.createContext("/", x -> {
            try (x) {
                e.handle(x);
            } catch (IOException ignored) {
                // the proxy went away
            }
        });
        s.start();
        return e;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The request that carried {@code X-Test-Id: id}, or null. */
    public Seen byId(String id) {
        return byId.get(id);
    }

    private void handle(HttpExchange x) throws IOException {
        MessageDigest in = sha();
        long bytes = 0;
        try (InputStream body = x.getRequestBody()) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = body.read(buf)) > 0) {
                in.update(buf, 0, n);
                bytes += n;
            }
        }
        Map<String, String> headers = new TreeMap<>();
        x.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), String.join(",", v)));
        String path = x.getRequestURI().getPath();
        Map<String, String> query = query(x.getRequestURI().getRawQuery());
        int n = Integer.parseInt(query.getOrDefault("n", "5"));
        long gap = Long.parseLong(query.getOrDefault("gap_ms", "0")) * 1_000_000L;
        MessageDigest out = sha();
        List<Long> sent = new ArrayList<>();
        String requestSha = HexFormat.of().formatHex(in.digest());
        switch (path) {
            case "/sse", "/ndjson" -> {
                boolean sse = path.equals("/sse");
                x.getResponseHeaders().set("Content-Type", sse ? "text/event-stream" : "application/x-ndjson");
                x.sendResponseHeaders(200, 0);
                OutputStream o = x.getResponseBody();
                long next = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        next += gap;
                        while (System.nanoTime() < next) {
                            LockSupport.parkNanos(Math.max(1, next - System.nanoTime()));
                        }
                    }
                    String word = "w" + i + " \u00fcber";
                    String chunk = sse
                            ? "data: {\"id\":\"c1\",\"model\":\"rec-model\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                                    + word + "\"}}]}\n\n"
                            : "{\"model\":\"rec-model\",\"message\":{\"role\":\"assistant\",\"content\":\"" + word
                                    + "\"},\"done\":false}\n";
                    write(o, out, chunk);
                    sent.add(System.nanoTime());
                }
                String tail = sse
                        ? "data: {\"id\":\"c1\",\"model\":\"rec-model\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,"
                                + "\"completion_tokens\":" + n + ",\"total_tokens\":" + (n + 7) + "}}\n\ndata: [DONE]\n\n"
                        : "{\"model\":\"rec-model\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,"
                                + "\"prompt_eval_count\":7,\"eval_count\":" + n + ",\"eval_duration\":1000000}\n";
                write(o, out, tail);
                o.close();
            }
            case "/broken" -> {
                // Headers that promise a body of 1,000 bytes; none of it follows.
                x.getResponseHeaders().set("Content-Type", "text/event-stream");
                x.getResponseHeaders().set("Cache-Control", "max-age=60");
                x.sendResponseHeaders(200, 1000);
                x.getResponseBody().flush();
                seen.add(new Seen(path, headers, x.getRemoteAddress().getPort(), requestSha, bytes, "", List.of()));
                // An exception out of the handler makes the server drop the connection: the 1,000 bytes never come.
                throw new IOException("the engine breaks off after its headers");
            }
            case "/json" -> {
                byte[] b = ("{\"id\":\"c1\",\"model\":\"rec-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                        + "\"content\":\"a whole answer\"}}],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":" + n
                        + ",\"total_tokens\":" + (n + 11) + "}}").getBytes(StandardCharsets.UTF_8);
                x.getResponseHeaders().set("Content-Type", "application/json");
                x.sendResponseHeaders(200, b.length);
                write(x.getResponseBody(), out, b);
            }
            default -> {
                byte[] b = ("{\"sha256\":\"" + requestSha + "\",\"bytes\":" + bytes + "}").getBytes(StandardCharsets.UTF_8);
                x.getResponseHeaders().set("Content-Type", "application/json");
                x.sendResponseHeaders(path.equals("/missing") ? 404 : 200, b.length);
                write(x.getResponseBody(), out, b);
            }
        }
        Seen s = new Seen(path, headers, x.getRemoteAddress().getPort(), requestSha, bytes,
                HexFormat.of().formatHex(out.digest()), List.copyOf(sent));
        seen.add(s);
        String id = headers.get("x-test-id");
        if (id != null) {
            byId.put(id, s);
        }
    }

    private static void write(OutputStream o, MessageDigest d, String s) throws IOException {
        write(o, d, s.getBytes(StandardCharsets.UTF_8));
    }

    private static void write(OutputStream o, MessageDigest d, byte[] b) throws IOException {
        d.update(b);
        o.write(b);
        o.flush();
    }

    private static Map<String, String> query(String q) {
        Map<String, String> m = new TreeMap<>();
        if (q != null) {
            for (String kv : q.split("&")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    m.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        return m;
    }

    public static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
