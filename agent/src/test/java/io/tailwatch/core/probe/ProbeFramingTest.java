package io.tailwatch.core.probe;

import static io.tailwatch.core.probe.ProbeFaultTest.CONTENT;
import static io.tailwatch.core.probe.ProbeFaultTest.against;
import static io.tailwatch.testing.FaultServer.chunk;
import static io.tailwatch.testing.FaultServer.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.testing.FaultServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** A response whose framing or encoding is wrong is malformed, not a cut connection. */
class ProbeFramingTest {
    @Test
    void aBadChunkSizeIsMalformed() throws Exception {
        ProbeResult r = against("openai", (req, out) -> write(out, FaultServer.SSE_HEADERS
                + FaultServer.chunk(CONTENT) + "zz-not-hex\r\n" + CONTENT + "\r\n"));
        assertThat(r.errorType()).isEqualTo(ProbeErrors.MALFORMED);
        assertThat(r.errorMessage()).contains("chunk size");
    }

    @Test
    void aGzipBodyThatWasNotAskedForIsMalformed() throws Exception {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(z)) {
            g.write((CONTENT + "data: [DONE]\n\n").getBytes(StandardCharsets.UTF_8));
        }
        byte[] body = z.toByteArray();
        ProbeResult r = against("openai", (req, out) -> {
            write(out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n");
            out.write(body);
        });
        assertThat(r.errorType()).isEqualTo(ProbeErrors.MALFORMED);
        assertThat(r.errorMessage()).contains("gzip");
    }
}
