package io.tailwatch.core.probe;

import static io.tailwatch.testing.FaultServer.chunk;
import static io.tailwatch.testing.FaultServer.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.testing.FaultServer;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The probe's timestamps are the moments bytes came off the socket, the moments curl's trace reports:
 * the time to headers is the arrival of the status line (not the end of the head), and pieces of the
 * body that arrived in one socket read share that read's time (whatever parsing happened between them).
 */
class ProbeTimestampTest {
    static final long HEAD_PAUSE_MS = 400;
    static final String OPENAI_CONTENT = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n";
    static final String OPENAI_DONE = "data: [DONE]\n\n";
    static final String OLLAMA_CONTENT = "{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"done\":false}\n";
    static final String OLLAMA_DONE = "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true}\n";

    static ProbeResult probe(String api, int port) {
        try (EngineClient c = EngineClients.create(api, URI.create("http://127.0.0.1:" + port), null,
                Duration.ofSeconds(2))) {
            return c.probe(new ProbeRequest("m", 16, 4, 0, Duration.ofSeconds(5), Duration.ofSeconds(8)));
        }
    }

    @Test
    void timeToHeadersIsTheStatusLineArrivalNotTheEndOfTheHead() throws IOException {
        // The status line at once, the rest of the head HEAD_PAUSE_MS later: curl's first "Recv header" is the
        // status line's arrival, and so is the probe's.
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, "HTTP/1.1 200 OK\r\n");
            Thread.sleep(HEAD_PAUSE_MS);
            write(out, "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
            write(out, chunk(OPENAI_CONTENT) + chunk(OPENAI_DONE) + "0\r\n\r\n");
        })) {
            ProbeResult r = probe("openai", s.port());
            assertThat(r.success()).as(String.valueOf(r.errorMessage())).isTrue();
            assertThat(r.ttftSeconds()).as("the content came after the pause").isGreaterThanOrEqualTo(HEAD_PAUSE_MS / 1e3);
            assertThat(r.timeToHeadersSeconds()).as("the status line came before the pause")
                    .isLessThan(r.ttftSeconds() - HEAD_PAUSE_MS / 1e3 / 2);
        }
    }

    @Test
    void piecesOfOneSocketReadShareItsTimeSse() throws IOException {
        // Two content events and the end marker in one write (one chunk each, so the client hands them to the
        // parser in three pieces): they arrived together, so the gap between the tokens is 0 and the end is the
        // first token's time.
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, FaultServer.SSE_HEADERS);
            Thread.sleep(50);
            write(out, chunk(OPENAI_CONTENT) + chunk(OPENAI_CONTENT) + chunk(OPENAI_DONE) + "0\r\n\r\n");
        })) {
            ProbeResult r = probe("openai", s.port());
            assertThat(r.success()).as(String.valueOf(r.errorMessage())).isTrue();
            assertThat(r.chunkGapsSeconds()).containsExactly(0.0);
            assertThat(r.e2eSeconds()).isEqualTo(r.ttftSeconds());
        }
    }

    @Test
    void piecesOfOneSocketReadShareItsTimeNdjson() throws IOException {
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, FaultServer.NDJSON_HEADERS);
            Thread.sleep(50);
            write(out, chunk(OLLAMA_CONTENT) + chunk(OLLAMA_CONTENT) + chunk(OLLAMA_DONE) + "0\r\n\r\n");
        })) {
            ProbeResult r = probe("ollama", s.port());
            assertThat(r.success()).as(String.valueOf(r.errorMessage())).isTrue();
            assertThat(r.chunkGapsSeconds()).containsExactly(0.0);
            assertThat(r.e2eSeconds()).isEqualTo(r.ttftSeconds());
        }
    }

    @Test
    void piecesOfSeparateReadsKeepTheirOwnTimes() throws IOException {
        // The counterpart: a token that came HEAD_PAUSE_MS after the first is timed at its own arrival.
        try (FaultServer s = new FaultServer((req, out) -> {
            write(out, FaultServer.SSE_HEADERS);
            write(out, chunk(OPENAI_CONTENT));
            Thread.sleep(HEAD_PAUSE_MS);
            write(out, chunk(OPENAI_CONTENT) + chunk(OPENAI_DONE) + "0\r\n\r\n");
        })) {
            ProbeResult r = probe("openai", s.port());
            assertThat(r.success()).as(String.valueOf(r.errorMessage())).isTrue();
            assertThat(r.chunkGapsSeconds()).hasSize(1);
            assertThat(r.chunkGapsSeconds().get(0)).isGreaterThanOrEqualTo(HEAD_PAUSE_MS / 1e3 * 0.9);
            assertThat(r.e2eSeconds() - r.ttftSeconds()).as("the end came with the second token")
                    .isCloseTo(r.chunkGapsSeconds().get(0), org.assertj.core.data.Offset.offset(1e-9));
        }
    }
}
