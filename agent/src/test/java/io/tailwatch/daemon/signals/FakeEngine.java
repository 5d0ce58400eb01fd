package io.tailwatch.daemon.signals;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/** A loopback HTTP server answering fixed bodies per path; anything else is 404, like a real server. */
final class FakeEngine implements AutoCloseable {
    record Answer(int status, String contentType, String body, Duration delay) {
    }

    private final HttpServer server;
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    final List<String> requested = new CopyOnWriteArrayList<>();

    FakeEngine() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "fake-engine");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", x -> {
            try (x) {
                requested.add(x.getRequestURI().getPath());
                Answer a = answers.get(x.getRequestURI().getPath());
                if (a == null) {
                    a = new Answer(404, "text/plain; charset=utf-8", "404 page not found", Duration.ZERO);
                }
                if (!a.delay().isZero()) {
                    try {
                        Thread.sleep(a.delay().toMillis());
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                byte[] b = a.body().getBytes(StandardCharsets.UTF_8);
                x.getResponseHeaders().set("Content-Type", a.contentType());
                x.sendResponseHeaders(a.status(), b.length == 0 ? -1 : b.length);
                if (b.length > 0) {
                    try (OutputStream o = x.getResponseBody()) {
                        o.write(b);
                    }
                }
            } catch (IOException e) {
                // client went away
            }
        });
        server.start();
    }

    FakeEngine answer(String path, int status, String contentType, String body) {
        answers.put(path, new Answer(status, contentType, body, Duration.ZERO));
        return this;
    }

    FakeEngine slow(String path, Duration delay) {
        answers.put(path, new Answer(200, "application/json", "{}", delay));
        return this;
    }

    FakeEngine json(String path, String body) {
        return answer(path, 200, "application/json", body);
    }

    FakeEngine prometheus(String path, String body) {
        return answer(path, 200, "text/plain; version=0.0.4; charset=utf-8", body);
    }

    FakeEngine remove(String path) {
        answers.remove(path);
        return this;
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    EngineEndpoint endpoint() {
        return new EngineEndpoint(url(), null, Duration.ofSeconds(2));
    }

    static String resource(String name) {
        try (InputStream in = FakeEngine.class.getResourceAsStream("/signals/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
