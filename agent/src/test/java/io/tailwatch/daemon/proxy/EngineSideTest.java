package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.daemon.api.ApiServer;
import io.tailwatch.metrics.MetricHub;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy's engine side against a scripted engine on loopback, whose every byte the test writes: what the engine
 * may legally do that the recording engine and the simulator never do (interim answers, an answer that ends with its
 * connection, a kept connection closed without a word, silence) and what it must not (a malformed answer), with the
 * proxy's deadlines and its kept connections.
 */
class EngineSideTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** One accepted engine connection: what the script does with it. */
    interface Script {
        void run(Socket s, int connection) throws Exception;
    }

    private ServerSocket engine;
    private final List<Socket> engineSockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private Server server;
    private MeteringProxyHandler handler;
    private int port;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (engine != null) {
            engine.close();
        }
        for (Socket s : engineSockets) {
            s.close();
        }
    }

    private void start(Script script, long idleMillis, long timeoutMillis, long restMillis) throws Exception {
        start(script, idleMillis, timeoutMillis, restMillis, 8);
    }

    private void start(Script script, long idleMillis, long timeoutMillis, long restMillis, int max) throws Exception {
        engine = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!engine.isClosed()) {
                try {
                    Socket s = engine.accept();
                    engineSockets.add(s);
                    int n = accepted.incrementAndGet();
                    Thread t = new Thread(() -> {
                        try {
                            script.run(s, n);
                        } catch (Exception e) {
                            // The proxy closed its side: the script ends.
                        }
                    });
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        QueuedThreadPool pool = new QueuedThreadPool(16, 2, 30_000);
        pool.setDaemon(true);
        server = new Server(pool);
        server.setDynamic(false);
        HttpConfiguration http = new HttpConfiguration();
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        // As the proxy's own listener: the client's side has the same idle timeout as the engine's.
        connector.setIdleTimeout(idleMillis);
        server.addConnector(connector);
        URI base = URI.create("http://127.0.0.1:" + engine.getLocalPort());
        handler = new MeteringProxyHandler(() -> new MeteringProxyHandler.Upstream(base, null, 2_000, restMillis),
                new ProxyMeter("scripted", new MetricHub()), () -> Lanes.NONE, null,
                () -> new ApiServer.HostCheck(List.of()), null,
                new MeteringProxyHandler.Limits(max, idleMillis, timeoutMillis, 16 * 1024));
        server.setHandler(handler);
        server.start();
        port = connector.getLocalPort();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Reads one request head (and its Content-Length body) from the proxy; null when the proxy closed the connection. */
    static String readRequest(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        for (String line : h.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                in.readNBytes(Integer.parseInt(line.substring(15).trim()));
            }
        }
        return h;
    }

    static void write(Socket s, String bytes) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(bytes.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** True once the proxy has closed its side of {@code s} (the engine reads the end of the stream). */
    static boolean closedByProxy(Socket s) {
        try {
            s.setSoTimeout(50);
            return s.getInputStream().read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void anEngineSilentLongerThanTheIdleTimeoutGets504AndItsConnectionIsClosed() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            // Nothing: a prefill that never ends.
        }, 1_000, 0, 0);
        long t0 = System.nanoTime();
        HttpResponse<String> r = get("/v1/chat/completions");
        long took = (System.nanoTime() - t0) / 1_000_000;
        assertThat(r.statusCode()).as(r.body()).isEqualTo(504);
        JsonNode body = Json.MAPPER.readTree(r.body());
        assertThat(body.path("error").asText()).isEqualTo("the engine did not answer in time");
        assertThat(body.path("engine").asText()).isEqualTo("scripted");
        assertThat(took).as("ms until the 504").isBetween(1_000L, 10_000L);
        await().atMost(Duration.ofSeconds(5)).until(() -> engineSockets.size() == 1 && closedByProxy(engineSockets.get(0)));
    }

    @Test
    void aStreamLongerThanTheRequestTimeoutIsCutAndTheEngineLetGo() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            write(s, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
            while (true) {
                write(s, "7\r\ndata:\n\n\r\n");
                Thread.sleep(100);
            }
        }, 300_000, 1_500, 0);
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> get("/stream")).isInstanceOf(IOException.class);
        long took = (System.nanoTime() - t0) / 1_000_000;
        assertThat(took).as("ms until the cut").isBetween(1_500L, 10_000L);
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByProxy(engineSockets.get(0)));
    }

    @Test
    void interimAnswersArePassedOverAndTheFinalOneArrives() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            write(s, "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                    + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nX-Final: yes\r\n\r\nok");
            readRequest(s.getInputStream());
        }, 10_000, 0, 0);
        HttpResponse<String> r = get("/interim");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("ok");
        assertThat(r.headers().firstValue("X-Final")).hasValue("yes");
        assertThat(r.headers().firstValue("Link")).as("the interim answer's headers are not the final one's").isEmpty();
    }

    @Test
    void anAnswerThatEndsWithItsConnectionPassesWholeAndTheConnectionIsNotKept() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            write(s, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nhello, ");
            write(s, "until the end");
            s.close();
        }, 10_000, 0, 0);
        HttpResponse<String> r = get("/eof");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("hello, until the end");
        assertThat(handler.openConnections()).isZero();
        assertThat(get("/eof").body()).isEqualTo("hello, until the end");
        assertThat(accepted.get()).isEqualTo(2);
    }

    @Test
    void aMalformedAnswerIs502AndTheConnectionIsNotKept() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            write(s, "HTTP/1.1 200 OK\r\nContent-Length: banana\r\n\r\nok");
            readRequest(s.getInputStream());
        }, 10_000, 0, 0);
        HttpResponse<String> r = get("/bad");
        assertThat(r.statusCode()).isEqualTo(502);
        assertThat(Json.MAPPER.readTree(r.body()).path("error").asText())
                .isEqualTo("the engine cannot be reached or broke off its answer");
        assertThat(handler.openConnections()).isZero();
    }

    @Test
    void aKeptConnectionTheEngineClosedAfterItsRestIsNotUsed() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            write(s, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n" + n);
            // llama-server's way: the connection is closed after the answer, without a word.
            s.close();
        }, 10_000, 0, 100);
        assertThat(get("/a").body()).isEqualTo("1");
        // After the rest, the kept connection is checked, found closed and left: the request goes on a new one.
        await().pollDelay(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> handler.keptConnections() == 1);
        HttpResponse<String> r = get("/b");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("2");
        assertThat(accepted.get()).isEqualTo(2);
    }

    @Test
    void aConnectionIsKeptUsedAgainForHeadAndGetAndClosedWhenIdleTooLong() throws Exception {
        List<String> heads = new CopyOnWriteArrayList<>();
        start((s, n) -> {
            while (true) {
                String h = readRequest(s.getInputStream());
                if (h == null) {
                    return;
                }
                heads.add(h);
                // A HEAD answer has the length of the body a GET would get, and no body.
                write(s, h.startsWith("HEAD ") ? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                        : "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
            }
        }, 1_000, 0, 0);
        HttpResponse<Void> head = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/h"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("Content-Length")).hasValue("5");
        assertThat(get("/g").body()).isEqualTo("hello");
        assertThat(get("/g").body()).isEqualTo("hello");
        assertThat(heads).hasSize(3);
        assertThat(heads.get(0)).startsWith("HEAD /h HTTP/1.1\r\n");
        assertThat(accepted.get()).as("one engine connection for all three").isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> handler.keptConnections() == 1);
        // Idle longer than the idle timeout: closed by the proxy.
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.keptConnections() == 0);
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByProxy(engineSockets.get(0)));
    }

    /**
     * Connections that rest after their answers and new ones for requests that find none rested stay within
     * max_connections together (each holds two buffers the memory budget counts once per stream): the oldest resting
     * one is closed to open a new one.
     */
    @Test
    void restingAndBusyEngineConnectionsStayWithinMaxConnections() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        start((s, n) -> {
            while (true) {
                String h = readRequest(s.getInputStream());
                if (h == null) {
                    return;
                }
                if (h.startsWith("GET /slow")) {
                    write(s, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n");
                    release.await();
                    write(s, "0\r\n\r\n");
                } else {
                    write(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                }
            }
        }, 60_000, 0, 30_000, 2);
        assertThat(get("/a").body()).isEqualTo("ok");
        assertThat(get("/b").body()).isEqualTo("ok");
        // (Put back just after the answer's last byte has gone out.)
        await().atMost(Duration.ofSeconds(5)).until(() -> handler.keptConnections() == 2);
        java.util.List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> slow = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            slow.add(HTTP.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/slow")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() == 4);
        assertThat(handler.openConnections()).isLessThanOrEqualTo(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> closedByProxy(engineSockets.get(0)) && closedByProxy(engineSockets.get(1)));
        release.countDown();
        for (var f : slow) {
            assertThat(f.get().body()).isEqualTo("a");
        }
        assertThat(handler.openConnections()).isLessThanOrEqualTo(2);
    }

    @Test
    void anEngineThatAnswersBeforeTheBodyEndsHasItsAnswerPassedOn() throws Exception {
        start((s, n) -> {
            InputStream in = s.getInputStream();
            // The head only: a server that refuses a body by its Content-Length answers at once and stops reading.
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                head.write(in.read());
            }
            write(s, "HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: 24\r\n"
                    + "Connection: close\r\n\r\n{\"error\":\"body too big\"}");
            s.shutdownOutput();
            s.close();
        }, 10_000, 0, 0);
        // A client of its own on a socket that reads the answer while its body is still going out (as curl does),
        // its failing writes ignored: the answer is what it reads.
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            client.setSoTimeout(20_000);
            int length = 32 * 1024 * 1024;
            Thread upload = new Thread(() -> {
                try {
                    OutputStream out = client.getOutputStream();
                    out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    byte[] piece = new byte[64 * 1024];
                    java.util.Arrays.fill(piece, (byte) 'x');
                    for (int sent = 0; sent < length; sent += piece.length) {
                        out.write(piece);
                    }
                } catch (IOException refused) {
                    // The proxy closed the connection after the answer: the rest is not wanted.
                }
            });
            upload.setDaemon(true);
            upload.start();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            try {
                client.getInputStream().transferTo(answer);
            } catch (IOException reset) {
                // What arrived before the connection ended is the answer.
            }
            String r = answer.toString(StandardCharsets.ISO_8859_1);
            assertThat(r).startsWith("HTTP/1.1 413 ").endsWith("\r\n\r\n{\"error\":\"body too big\"}");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> handler.openConnections() == 0);
    }

    @Test
    void aClientThatDribblesItsBodyPastTheRequestTimeoutGets504AtTheTimeout() throws Exception {
        start((s, n) -> {
            readRequest(s.getInputStream());
            write(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        }, 10_000, 1_500, 0);
        try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
            client.setSoTimeout(20_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n{").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            long t0 = System.nanoTime();
            // One byte every 4 s: each within the 10 s idle timeout, the second past the 1.5 s timeout.
            java.util.concurrent.ScheduledExecutorService drip = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            try {
                drip.scheduleAtFixedRate(() -> {
                    try {
                        out.write(' ');
                        out.flush();
                    } catch (IOException closed) {
                        throw new java.io.UncheckedIOException(closed);
                    }
                }, 4_000, 4_000, java.util.concurrent.TimeUnit.MILLISECONDS);
                String status = new String(client.getInputStream().readNBytes(12), StandardCharsets.ISO_8859_1);
                long took = (System.nanoTime() - t0) / 1_000_000;
                assertThat(status).isEqualTo("HTTP/1.1 504");
                assertThat(took).as("ms until the 504").isBetween(1_400L, 3_900L);
            } finally {
                drip.shutdownNow();
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> handler.openConnections() == 0);
    }
}
