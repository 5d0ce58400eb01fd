package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tailwatch.testing.AgentProcess;
import io.tailwatch.testing.RecordingEngine;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's door, against the real agent started by the release launcher (shipped flags, 24 MiB heap) and a
 * recording engine: what a reverse proxy answers itself (a foreign Host name, CONNECT, {@code OPTIONS *}, a
 * malformed chunk, a client's forwarding headers) and the head deadline that keeps 64 byte-a-time request heads
 * from holding every connection.
 */
class ProxyDoorIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static RecordingEngine engine;
    static AgentProcess agent;
    static int proxy;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        engine = RecordingEngine.start();
        Path cfg = dir.resolve("tailwatch.yaml");
        Files.writeString(cfg, "server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 1s\nengines:\n"
                + ProxyIT.engineYaml("rec", engine.port()) + "      connection_rest: 0s\n");
        agent = AgentProcess.startShipped(dir, Map.of(), "run", "--config", cfg.toString());
        agent.awaitListening();
        await().atMost(Duration.ofSeconds(30)).until(() -> port() > 0);
        proxy = port();
    }

    static int port() throws Exception {
        return ProxyIT.proxyPort(agent, "rec");
    }

    @AfterAll
    static void stop() {
        if (agent != null) {
            agent.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    /** Writes {@code request} on a new connection and reads the one answer. */
    static ProxyIT.Raw exchange(String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", proxy)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return ProxyIT.Raw.read(s.getInputStream());
        }
    }

    static String body(ProxyIT.Raw r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** DNS rebinding: a page on another site whose name now points here must not reach the engine. */
    @Test
    void aHostNameThatIsNotTheProxysOwnIsMisdirected() throws Exception {
        ProxyIT.Raw foreign = exchange("GET /headers HTTP/1.1\r\nHost: rebound.example:" + proxy + "\r\nX-Test-Id: door-host\r\n\r\n");
        assertThat(foreign.status()).isEqualTo(421);
        assertThat(foreign.headers().get("content-type")).startsWith("application/json");
        ProxyIT.Raw absolute = exchange("GET http://rebound.example/headers HTTP/1.1\r\nHost: rebound.example"
                + "\r\nX-Test-Id: door-absolute\r\n\r\n");
        assertThat(absolute.status()).isEqualTo(421);
        // An absolute target whose name differs from Host is refused by the server before the proxy sees it.
        ProxyIT.Raw mixed = exchange("GET http://rebound.example/headers HTTP/1.1\r\nHost: 127.0.0.1:" + proxy
                + "\r\nX-Test-Id: door-mixed\r\n\r\n");
        assertThat(mixed.status()).isBetween(400, 421);
        for (String own : new String[] {"127.0.0.1:" + proxy, "localhost:" + proxy, "[::1]:" + proxy}) {
            assertThat(exchange("GET /headers HTTP/1.1\r\nHost: " + own + "\r\nX-Test-Id: door-own\r\n\r\n").status())
                    .as(own).isEqualTo(200);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("door-own") != null);
        assertThat(engine.byId("door-host")).as("the rebound request never reached the engine").isNull();
        assertThat(engine.byId("door-absolute")).isNull();
        assertThat(engine.byId("door-mixed")).isNull();
    }

    /** CONNECT is not a tunnel to the engine: 405 naming the methods served, and the connection is closed. */
    @Test
    void connectIsRefusedAndItsConnectionClosed() throws Exception {
        int seen = engine.seen().size();
        try (Socket s = new Socket("127.0.0.1", proxy)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("CONNECT 127.0.0.1:" + engine.port() + " HTTP/1.1\r\nHost: 127.0.0.1:" + engine.port()
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ProxyIT.Raw r = ProxyIT.Raw.read(in);
            assertThat(r.status()).isEqualTo(405);
            assertThat(r.headers().get("allow")).contains("GET", "POST").doesNotContain("CONNECT");
            assertThat(in.read()).as("the proxy closed the connection").isEqualTo(-1);
        }
        assertThat(engine.seen()).hasSize(seen);
    }

    @Test
    void optionsStarIsAnsweredByTheProxyWithoutATrace() throws Exception {
        ProxyIT.Raw r = exchange("OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:" + proxy + "\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().get("allow")).contains("GET", "POST", "OPTIONS");
        assertThat(body(r)).doesNotContain("Exception", "at org.", "at io.");
    }

    /** A bad chunk size in the client's own body is the client's error: 400, not a 502 that blames the engine. */
    @Test
    void aClientsMalformedChunkIsAnsweredAsItsOwnError() throws Exception {
        ProxyIT.Raw r = exchange("POST /json HTTP/1.1\r\nHost: 127.0.0.1:" + proxy + "\r\nX-Test-Id: door-chunk\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\nbroken\r\n0\r\n\r\n");
        assertThat(r.status()).isEqualTo(400);
        assertThat(body(r)).doesNotContain("engine", "Exception");
    }

    /** The proxy is the first hop: X-Forwarded-For is the connection's address, whatever the client claimed. */
    @Test
    void aClientsForwardingHeadersAreReplacedByWhatTheProxySaw() throws Exception {
        ProxyIT.Raw r = exchange("GET /headers HTTP/1.1\r\nHost: 127.0.0.1:" + proxy + "\r\nX-Test-Id: door-xff\r\n"
                + "X-Forwarded-For: 203.0.113.9\r\nForwarded: for=203.0.113.9\r\nX-Real-IP: 203.0.113.9\r\n"
                + "X-Forwarded-Proto: https\r\nX-Forwarded-Host: bank.example\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> engine.byId("door-xff") != null);
        Map<String, String> h = engine.byId("door-xff").headers();
        assertThat(h).containsEntry("x-forwarded-for", "127.0.0.1").containsEntry("x-forwarded-proto", "http")
                .containsEntry("x-forwarded-host", "127.0.0.1:" + proxy)
                .doesNotContainKey("forwarded").doesNotContainKey("x-real-ip");
    }

    /**
     * 64 connections (the default max_connections) that send a request head a byte at a time are closed at the head
     * deadline, whatever the idle timeout, and a real client gets its answer meanwhile.
     */
    @Test
    void sixtyFourByteAtATimeHeadsDoNotLockOutARealClient() throws Exception {
        List<Socket> slow = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        Thread dribbler = null;
        try {
            for (int i = 0; i < 64; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", proxy), 5_000);
                s.setSoTimeout(50);
                slow.add(s);
            }
            byte[] head = ("GET /headers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + "x".repeat(2000) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            dribbler = new Thread(() -> {
                for (int i = 0; i < head.length - 4 && !stop.get(); i++) {
                    for (Socket s : slow) {
                        try {
                            OutputStream o = s.getOutputStream();
                            o.write(head[i]);
                            o.flush();
                        } catch (Exception e) {
                            // closed by the proxy: the point of the test
                        }
                    }
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            dribbler.setDaemon(true);
            dribbler.start();
            // Every slot is held now; the real client waits in the accept queue until the deadline frees them.
            HttpResponse<String> real = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + proxy + "/headers"))
                    .header("X-Test-Id", "door-real").timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(real.statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30)).until(() -> slow.stream().allMatch(ProxyDoorIT::closedByPeer));
        } finally {
            stop.set(true);
            if (dribbler != null) {
                dribbler.interrupt();
            }
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    static boolean closedByPeer(Socket s) {
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (Exception e) {
            return true;
        }
    }
}
