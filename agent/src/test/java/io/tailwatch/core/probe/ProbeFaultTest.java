package io.tailwatch.core.probe;

import static io.tailwatch.testing.FaultServer.NDJSON_HEADERS;
import static io.tailwatch.testing.FaultServer.SSE_HEADERS;
import static io.tailwatch.testing.FaultServer.chunk;
import static io.tailwatch.testing.FaultServer.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.FaultServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Probes against servers that hang, trickle, cut, answer errors or send garbage: each yields its
 * error type within its deadline, never a hang, never an exception.
 */
class ProbeFaultTest {
    static final Duration FIRST = Duration.ofMillis(600);
    static final Duration TOTAL = Duration.ofMillis(1500);
    static final String CONTENT = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n";

    static ProbeResult probe(String api, int port) {
        try (EngineClient c = EngineClients.create(api, URI.create("http://127.0.0.1:" + port), "secret-key",
                Duration.ofMillis(300))) {
            return c.probe(new ProbeRequest("m", 16, 4, 0, FIRST, TOTAL));
        }
    }

    static ProbeResult against(String api, FaultServer.Script script) throws IOException {
        try (FaultServer s = new FaultServer(script)) {
            ProbeResult r = probe(api, s.port());
            assertThat(r.e2eSeconds()).as("never past the total deadline").isLessThan(TOTAL.toMillis() / 1000.0 + 1.0);
            assertThat(r.success()).isFalse();
            assertThat(r.errorMessage()).doesNotContain("secret-key");
            return r;
        }
    }

    @Test
    void refusedConnection() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ProbeResult r = probe("openai", port);
        assertThat(r.errorType()).isEqualTo("connect_refused");
        assertThat(r.timeToHeadersSeconds()).isNull();
    }

    @Test
    void connectTimeoutWhenTheAcceptQueueIsFull() throws IOException {
        // A listener that never accepts, with its backlog filled: the kernel drops further SYNs.
        try (io.tailwatch.testing.FullAcceptQueue s = new io.tailwatch.testing.FullAcceptQueue()) {
            ProbeResult r = probe("ollama", s.port());
            assertThat(r.errorType()).isEqualTo("connect_timeout");
            assertThat(r.e2eSeconds()).isLessThan(2.0);
        }
    }

    @Test
    void noAnswerAtAllIsFirstTokenTimeout() throws IOException {
        ProbeResult r = against("openai", (req, out) -> Thread.sleep(5000));
        assertThat(r.errorType()).isEqualTo("first_token_timeout");
        assertThat(r.errorMessage()).contains("no response headers");
        assertThat(r.e2eSeconds()).isBetween(0.55, 1.6);
    }

    @Test
    void headersButNoTokenIsFirstTokenTimeout() throws IOException {
        ProbeResult r = against("openai", (req, out) -> {
            write(out, SSE_HEADERS);
            for (int i = 0; i < 50; i++) {
                write(out, chunk(": keepalive " + i + "/50\n\n"));
                Thread.sleep(100);
            }
        });
        assertThat(r.errorType()).isEqualTo("first_token_timeout");
        assertThat(r.timeToHeadersSeconds()).isLessThan(0.55);
    }

    @Test
    void tricklingStreamIsTotalTimeout() throws IOException {
        ProbeResult r = against("openai", (req, out) -> {
            write(out, SSE_HEADERS);
            for (int i = 0; i < 100; i++) {
                write(out, chunk(CONTENT));
                Thread.sleep(100);
            }
        });
        assertThat(r.errorType()).isEqualTo("total_timeout");
        assertThat(r.ttftSeconds()).isLessThan(r.e2eSeconds() - 1.0);
        assertThat(r.e2eSeconds()).isBetween(1.45, 2.5);
    }

    @Test
    void abortEndsAProbeAtOnceWhetherItWaitsForHeadersOrForTokens() throws Exception {
        for (boolean headersSent : new boolean[] {false, true}) {
            java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            try (FaultServer s = new FaultServer((req, out) -> {
                if (headersSent) {
                    write(out, SSE_HEADERS);
                    write(out, chunk(CONTENT));
                }
                asked.countDown();
                release.await(30, java.util.concurrent.TimeUnit.SECONDS); // stalls with the connection open
            });
                 EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:" + s.port()), null)) {
                java.util.concurrent.CompletableFuture<ProbeResult> f = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> c.probe(new ProbeRequest("m", 16, 4, 0, Duration.ofSeconds(20),
                                Duration.ofSeconds(20))));
                assertThat(asked.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                // the probe is now blocked in a read; abort until it lets go (it may not have registered yet)
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            c.abort();
                            return f.isDone();
                        });
                ProbeResult r = f.get();
                assertThat(r.success()).isFalse();
                assertThat(r.errorType()).isEqualTo("cut");
                assertThat(r.e2eSeconds()).as("well before the 20 s deadline").isLessThan(12.0);
            } finally {
                release.countDown();
            }
        }
    }

    @Test
    void connectionCutMidStream() throws IOException {
        ProbeResult r = against("openai", (req, out) -> {
            write(out, SSE_HEADERS);
            write(out, chunk(CONTENT));
            Thread.sleep(50);
            // return: the socket closes without the terminating chunk
        });
        assertThat(r.errorType()).isEqualTo("cut");
        assertThat(r.ttftSeconds()).isNotNull();
        ProbeResult o = against("ollama", (req, out) -> {
            write(out, NDJSON_HEADERS);
            write(out, chunk("{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"message\":{\"con"));
        });
        assertThat(o.errorType()).isEqualTo("cut");
    }

    @Test
    void cleanEndWithoutDoneIsCut() throws IOException {
        ProbeResult r = against("openai", (req, out) -> {
            write(out, SSE_HEADERS);
            write(out, chunk(CONTENT));
            write(out, "0\r\n\r\n");
        });
        assertThat(r.errorType()).isEqualTo("cut");
    }

    @Test
    void httpErrorsCarryTheirStatusAndMessage() throws IOException {
        for (int status : new int[] {404, 502, 503}) {
            String body = "{\"error\":\"model is loading\"}";
            ProbeResult r = against("ollama", (req, out) -> write(out, "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body));
            assertThat(r.errorType()).isEqualTo("http_" + status);
            assertThat(r.errorMessage()).contains("model is loading");
        }
        ProbeResult r = against("openai", (req, out) -> write(out,
                "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 61\r\n\r\n{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"x\"}}"));
        assertThat(r.errorType()).isEqualTo("http_503");
        assertThat(r.errorMessage()).contains("Loading model");
    }

    @Test
    void malformedJsonInTheStream() throws IOException {
        ProbeResult r = against("openai", (req, out) -> {
            write(out, SSE_HEADERS);
            write(out, chunk("data: {\"choices\":[{\"delta\":{\"content\":\n\n"));
            Thread.sleep(2000);
        });
        assertThat(r.errorType()).isEqualTo("malformed");
        ProbeResult o = against("ollama", (req, out) -> {
            write(out, NDJSON_HEADERS);
            write(out, chunk("<html><body>Bad Gateway</body></html>\n"));
            Thread.sleep(2000);
        });
        assertThat(o.errorType()).isEqualTo("malformed");
    }

    @Test
    void notHttpAtAll() throws IOException {
        ProbeResult r = against("openai", (req, out) -> write(out, "SSH-2.0-OpenSSH_9.6\r\n"));
        assertThat(r.errorType()).isIn("malformed", "cut");
    }

    @Test
    void errorLineInsideA200Stream() throws IOException {
        ProbeResult r = against("ollama", (req, out) -> {
            write(out, NDJSON_HEADERS);
            write(out, chunk("{\"message\":{\"content\":\"a\"},\"done\":false}\n"));
            write(out, chunk("{\"error\":\"an error was encountered while running the model\"}\n"));
            Thread.sleep(2000);
        });
        assertThat(r.errorType()).isEqualTo("stream_error");
    }

    @Test
    void bearerTokenIsSent() throws IOException {
        List<String> seen = new ArrayList<>();
        against("openai", (req, out) -> {
            seen.add(req);
            write(out, "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n");
        });
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).contains("Authorization: Bearer secret-key").contains("\"include_usage\":true");
    }

    @Test
    void healthOfAHangingServerIsDownWithinItsDeadline() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> Thread.sleep(5000));
             EngineClient c = EngineClients.create("ollama", URI.create("http://127.0.0.1:" + s.port()), null)) {
            long t0 = System.nanoTime();
            EngineHealth h = c.health(Duration.ofMillis(500));
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(1.5);
            assertThat(h.up()).isFalse();
            assertThat(h.error()).contains("/api/version");
        }
    }

    @Test
    void aStreamThatEndsWithoutAnOutputTokenIsNoOutput() throws IOException {
        // What llama-server sends when the model's first token is its end token: the role, a stop, usage, [DONE].
        ProbeResult r = against("openai", (req, out) -> {
            write(out, SSE_HEADERS);
            write(out, chunk("data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n"));
            write(out, chunk("data: {\"choices\":[{\"index\":0,\"finish_reason\":\"stop\",\"delta\":{}}],"
                    + "\"usage\":{\"prompt_tokens\":16,\"completion_tokens\":1,\"total_tokens\":17},"
                    + "\"timings\":{\"prompt_n\":16,\"prompt_ms\":3.1,\"predicted_n\":1,\"predicted_ms\":0.0,"
                    + "\"predicted_per_second\":0.0}}\n\n"));
            write(out, chunk("data: [DONE]\n\n"));
            write(out, "0\r\n\r\n");
        });
        assertThat(r.errorType()).isEqualTo("no_output");
        assertThat(r.errorMessage()).contains("without an output token").contains("counted 1 output tokens");
        assertThat(r.ttftSeconds()).isNull();
        assertThat(r.decodeTokensPerSecond()).isNull();
        assertThat(r.serverDecodeTokensPerSecond()).as("a rate of 0 is no rate").isNull();
        ProbeResult o = against("ollama", (req, out) -> {
            write(out, NDJSON_HEADERS);
            write(out, chunk("{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,"
                    + "\"done_reason\":\"stop\",\"eval_count\":0,\"eval_duration\":0}\n"));
            write(out, "0\r\n\r\n");
        });
        assertThat(o.errorType()).isEqualTo("no_output");
        assertThat(o.serverDecodeTokensPerSecond()).as("no decode rate of 0 from an empty answer").isNull();
    }
}
