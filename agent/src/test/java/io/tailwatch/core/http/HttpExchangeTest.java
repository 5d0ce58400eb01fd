package io.tailwatch.core.http;

import static io.tailwatch.testing.FaultServer.chunk;
import static io.tailwatch.testing.FaultServer.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.testing.FaultServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The HTTP/1.1 exchange against loopback servers that write exact bytes: framing, bounds, deadlines. */
class HttpExchangeTest {
    private static final long SECOND = 1_000_000_000L;

    private static URI uri(FaultServer s, String path) {
        return URI.create("http://127.0.0.1:" + s.port() + path);
    }

    private static HttpExchange get(FaultServer s) throws IOException {
        return HttpExchange.send(uri(s, "/x"), "GET", Map.of(), null, 2000, System.nanoTime() + 5 * SECOND);
    }

    private static String body(HttpExchange x) throws IOException {
        return new String(x.readBody(1 << 20, System.nanoTime() + 5 * SECOND), StandardCharsets.UTF_8);
    }

    @Test
    void requestCarriesMethodTargetHostHeadersAndBody() throws IOException {
        AtomicReference<String> seen = new AtomicReference<>();
        try (FaultServer s = new FaultServer((req, out) -> {
            seen.set(req);
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        })) {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Accept", "text/event-stream");
            h.put("Authorization", "Bearer k-123");
            byte[] payload = "{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8);
            try (HttpExchange x = HttpExchange.send(uri(s, "/v1/chat/completions?x=1&y=%20"), "POST", h, payload,
                    2000, System.nanoTime() + 5 * SECOND)) {
                assertThat(x.status()).isEqualTo(200);
                assertThat(body(x)).isEqualTo("ok");
            }
            String req = seen.get();
            assertThat(req).startsWith("POST /v1/chat/completions?x=1&y=%20 HTTP/1.1\r\n");
            assertThat(req).contains("\r\nHost: 127.0.0.1:" + s.port() + "\r\n", "\r\nConnection: close\r\n",
                    "\r\nContent-Length: " + payload.length + "\r\n", "\r\nAccept: text/event-stream\r\n",
                    "\r\nAuthorization: Bearer k-123\r\n");
            assertThat(req).endsWith("\r\n\r\n{\"a\":\"é\"}");
        }
    }

    @Test
    void chunkedBodyWithExtensionsTrailersAndOddSplits() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\nx-a: 2\r\n\r\n");
            // the size line, the data and the CRLF after it arrive in separate writes
            write(out, "5;name=val");
            write(out, "ue\r\nhel");
            write(out, "lo\r");
            write(out, "\n" + chunk(", world") + "0\r\nTrailer-One: x\r\n\r\n");
        })) {
            try (HttpExchange x = get(s)) {
                assertThat(x.header("x-a")).isEqualTo("1, 2");
                assertThat(x.header("TRANSFER-ENCODING")).isEqualTo("chunked");
                assertThat(body(x)).isEqualTo("hello, world");
                assertThat(x.read(new byte[10], System.nanoTime() + SECOND)).isEqualTo(-1);
            }
        }
    }

    @Test
    void eachChunkIsHandedOverAsSoonAsItArrives() throws Exception {
        CountDownLatch firstRead = new CountDownLatch(1);
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk("first"));
            // the second chunk is only sent once the client has read the first: a client that waited
            // for more than what arrived would block here until its deadline
            if (!firstRead.await(10, TimeUnit.SECONDS)) {
                return;
            }
            write(out, chunk("second") + "0\r\n\r\n");
        })) {
            try (HttpExchange x = get(s)) {
                byte[] buf = new byte[100];
                int n = x.read(buf, System.nanoTime() + 5 * SECOND);
                assertThat(new String(buf, 0, n, StandardCharsets.UTF_8)).isEqualTo("first");
                firstRead.countDown();
                assertThat(body(x)).isEqualTo("second");
            }
        }
    }

    @Test
    void lengthAndUntilCloseBodies() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> write(out, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcEXTRA"))) {
            try (HttpExchange x = get(s)) {
                assertThat(body(x)).isEqualTo("abc");
            }
        }
        try (FaultServer s = new FaultServer((req, out) -> write(out, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end"))) {
            try (HttpExchange x = get(s)) {
                assertThat(x.header("content-type")).isEqualTo("text/plain");
                assertThat(body(x)).isEqualTo("until the end");
            }
        }
    }

    @Test
    void interimResponsesAreSkippedAndNoContentHasNoBody() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> write(out,
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nX-Y: z\r\n\r\n"))) {
            try (HttpExchange x = get(s)) {
                assertThat(x.status()).isEqualTo(204);
                assertThat(x.reason()).isEqualTo("No Content");
                assertThat(x.header("x-y")).isEqualTo("z");
                assertThat(x.read(new byte[4], System.nanoTime() + SECOND)).isEqualTo(-1);
            }
        }
    }

    @Test
    void bodyCutShortIsAnIoErrorNotAnEnd() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> write(out, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"))) {
            try (HttpExchange x = get(s)) {
                assertThatThrownBy(() -> body(x)).isInstanceOf(IOException.class)
                        .isNotInstanceOf(ProtocolException.class).hasMessageContaining("7 bytes of the body missing");
            }
        }
        try (FaultServer s = new FaultServer((req, out) -> write(out,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk("part")))) {
            try (HttpExchange x = get(s)) {
                assertThatThrownBy(() -> body(x)).isInstanceOf(IOException.class)
                        .hasMessageContaining("before the next chunk");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SSH-2.0-OpenSSH_9.6\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "HTTP/1.1 200OK\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\n folded: value\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n",
    })
    void malformedHeadsAreProtocolErrors(String response) throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> write(out, response))) {
            assertThatThrownBy(() -> get(s)).isInstanceOf(ProtocolException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"zz\r\nab\r\n0\r\n\r\n", "\r\nab\r\n0\r\n\r\n", "2\r\nabc\r\n0\r\n\r\n", "fffffffffffffffff\r\n"})
    void malformedChunksAreProtocolErrors(String chunks) throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> write(out,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks))) {
            try (HttpExchange x = get(s)) {
                assertThatThrownBy(() -> body(x)).isInstanceOf(ProtocolException.class);
            }
        }
    }

    @Test
    void headLinesAndCountsAreBounded() throws IOException {
        String longLine = "HTTP/1.1 200 OK\r\nX-Big: " + "a".repeat(HttpExchange.MAX_LINE + 1) + "\r\n\r\n";
        try (FaultServer s = new FaultServer((req, out) -> write(out, longLine))) {
            assertThatThrownBy(() -> get(s)).isInstanceOf(ProtocolException.class).hasMessageContaining("longer than");
        }
        StringBuilder many = new StringBuilder("HTTP/1.1 200 OK\r\n");
        for (int i = 0; i <= HttpExchange.MAX_HEADERS; i++) {
            many.append("X-").append(i).append(": v\r\n");
        }
        many.append("\r\n");
        try (FaultServer s = new FaultServer((req, out) -> write(out, many.toString()))) {
            assertThatThrownBy(() -> get(s)).isInstanceOf(ProtocolException.class).hasMessageContaining("headers");
        }
        try (FaultServer s = new FaultServer((req, out) -> write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
                + "x".repeat(100)))) {
            try (HttpExchange x = get(s)) {
                assertThatThrownBy(() -> x.readBody(99, System.nanoTime() + 5 * SECOND))
                        .hasMessageContaining("larger than 99 bytes");
            }
        }
    }

    @Test
    void aStalledStreamEndsAtTheDeadlineNotWhenTheServerGivesUp() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk("one"));
            done.await(30, TimeUnit.SECONDS); // stalls, connection open
        })) {
            try (HttpExchange x = get(s)) {
                byte[] buf = new byte[16];
                assertThat(x.read(buf, System.nanoTime() + 5 * SECOND)).isEqualTo(3);
                long start = System.nanoTime();
                long deadline = start + 300_000_000L;
                assertThatThrownBy(() -> x.read(buf, deadline)).isInstanceOf(HttpExchange.DeadlineExceeded.class);
                // not before the deadline, and well before the server would end the connection (30 s)
                assertThat(System.nanoTime()).isGreaterThanOrEqualTo(deadline);
                assertThat((System.nanoTime() - start) / 1e9).isLessThan(10.0);
                // a deadline already in the past fails at once, without reading
                assertThatThrownBy(() -> x.read(buf, System.nanoTime() - 1)).isInstanceOf(HttpExchange.DeadlineExceeded.class);
            } finally {
                done.countDown();
            }
        }
    }

    @Test
    void noResponseHeadIsADeadlineAndRefusalIsAConnectException() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        try (FaultServer s = new FaultServer((req, out) -> done.await(30, TimeUnit.SECONDS))) {
            long deadline = System.nanoTime() + 200_000_000L;
            assertThatThrownBy(() -> HttpExchange.send(uri(s, "/"), "GET", Map.of(), null, 2000, deadline))
                    .isInstanceOf(HttpExchange.DeadlineExceeded.class);
        } finally {
            done.countDown();
        }
        int closedPort;
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = ss.getLocalPort();
        }
        assertThatThrownBy(() -> HttpExchange.send(URI.create("http://127.0.0.1:" + closedPort + "/"), "GET", Map.of(),
                null, 2000, System.nanoTime() + 5 * SECOND)).isInstanceOf(ConnectException.class);
    }

    @Test
    void headerValuesCannotInjectLinesAndOnlyHttpSchemesAreSpoken() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> write(out, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))) {
            assertThatThrownBy(() -> HttpExchange.send(uri(s, "/"), "GET", Map.of("Authorization", "Bearer a\r\nX-Evil: 1"),
                    null, 2000, System.nanoTime() + 5 * SECOND))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("Bearer");
        }
        assertThatThrownBy(() -> HttpExchange.send(URI.create("ftp://127.0.0.1:21/"), "GET", Map.of(), null, 2000,
                System.nanoTime() + SECOND)).isInstanceOf(ProtocolException.class).hasMessageContaining("ftp");
    }
}
