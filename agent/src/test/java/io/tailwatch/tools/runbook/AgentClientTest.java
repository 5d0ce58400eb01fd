package io.tailwatch.tools.runbook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** AgentClient against a real loopback HTTP server: token, JSON, and errors that name the endpoint. */
class AgentClientTest {
    HttpServer server;
    URI base;
    final AtomicReference<String> auth = new AtomicReference<>();
    final AtomicReference<String> accept = new AtomicReference<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/api/v1/status", ex -> {
            auth.set(ex.getRequestHeaders().getFirst("Authorization"));
            accept.set(ex.getRequestHeaders().getFirst("Accept"));
            byte[] b = "{\"version\":\"1.2.3\",\"engines\":[1,2]}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/api/v1/locked", ex -> {
            ex.sendResponseHeaders(401, -1);
            ex.close();
        });
        server.createContext("/api/v1/broken", ex -> {
            ex.sendResponseHeaders(500, -1);
            ex.close();
        });
        server.createContext("/api/v1/text", ex -> {
            byte[] b = "<html>hi</html>".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, 0); // chunked
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void reads_json_and_sends_the_bearer_token() throws IOException {
        JsonNode n = new AgentClient(base, "s3cret", Duration.ofSeconds(5)).get("/api/v1/status");
        assertThat(n.path("version").asText()).isEqualTo("1.2.3");
        assertThat(n.path("engines").size()).isEqualTo(2);
        assertThat(auth.get()).isEqualTo("Bearer s3cret");
        assertThat(accept.get()).isEqualTo("application/json");
    }

    @Test
    void sends_no_authorization_without_a_token() throws IOException {
        new AgentClient(base, null, Duration.ofSeconds(5)).get("/api/v1/status");
        assertThat(auth.get()).isNull();
    }

    @Test
    void errors_name_the_endpoint() throws IOException {
        AgentClient c = new AgentClient(base, null, Duration.ofSeconds(5));
        assertThatThrownBy(() -> c.get("/api/v1/locked")).hasMessageContaining("/api/v1/locked: 401 unauthorized");
        assertThatThrownBy(() -> c.get("/api/v1/broken")).hasMessageEndingWith("/api/v1/broken: HTTP 500");
        assertThatThrownBy(() -> c.get("/api/v1/text")).hasMessageContaining("/api/v1/text: not JSON");
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        AgentClient down = new AgentClient(URI.create("http://127.0.0.1:" + closed), null, Duration.ofSeconds(2));
        assertThatThrownBy(() -> down.get("/api/v1/status"))
                .hasMessageStartingWith("http://127.0.0.1:" + closed + "/api/v1/status: ")
                .hasMessageContaining("is the agent running?");
    }

    @Test
    void a_silent_agent_fails_at_the_deadline() throws IOException {
        try (ServerSocket silent = new ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            AgentClient c = new AgentClient(URI.create("http://127.0.0.1:" + silent.getLocalPort()), null,
                    Duration.ofMillis(300));
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> c.get("/api/v1/status")).hasMessageContaining("/api/v1/status: ")
                    .hasMessageContaining("deadline");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
        }
    }

    /** A cut after the handshake (TLS 1.3's late refusal of a missing client certificate) is told apart from a refusal. */
    @Test
    void aBrokenPipeOrResetIsACutConnectionButARefusedOrTimedOutOneIsNot() {
        assertThat(AgentClient.cutAfterHandshake(new java.net.SocketException("Broken pipe"))).isTrue();
        assertThat(AgentClient.cutAfterHandshake(new IOException("writing", new java.net.SocketException("Connection reset")))).isTrue();
        assertThat(AgentClient.cutAfterHandshake(new java.net.ConnectException("Connection refused"))).isFalse();
        assertThat(AgentClient.cutAfterHandshake(new java.net.SocketTimeoutException("Read timed out"))).isFalse();
        assertThat(AgentClient.tlsHint(new javax.net.ssl.SSLHandshakeException("Received fatal alert: certificate_required")))
                .contains("--cert and --key");
    }
}
