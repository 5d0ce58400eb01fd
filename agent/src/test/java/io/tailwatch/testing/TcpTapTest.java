package io.tailwatch.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TcpTapTest {
    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Test
    void bodiesOfKeptAliveMessagesComeOutInOrder() {
        byte[] wire = ascii("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\na;x=1\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: to the close\n\n");
        List<byte[]> bodies = TcpTap.bodies(wire, false);
        assertThat(bodies).hasSize(3);
        assertThat(text(bodies.get(0))).isEqualTo("hello");
        assertThat(text(bodies.get(1))).isEqualTo("abc0123456789");
        assertThat(text(bodies.get(2))).isEqualTo("data: to the close\n\n");
    }

    @Test
    void aRequestWithoutALengthHasNoBodyAndATornChunkIsAnError() {
        List<byte[]> bodies = TcpTap.bodies(ascii("GET /a HTTP/1.1\r\nHost: x\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"), true);
        assertThat(bodies).hasSize(2);
        assertThat(bodies.get(0)).isEmpty();
        assertThat(text(bodies.get(1))).isEqualTo("{}");
        assertThatThrownBy(() -> TcpTap.bodies(ascii("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"), false))
                .isInstanceOf(RuntimeException.class);
    }
}
