package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.metrics.AttrValues.TokenSource;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * llama.cpp's own {@code /completion} stream (fixtures/llamacpp/completion-stream.sse, recorded from
 * llama-server): the text stands at the top level ({@code content}, no {@code choices}) and the last chunk
 * says {@code "stop": true} with the timings, without a {@code [DONE]}. The proxy's tap meters it event by
 * event: the first content chunk is the first token, every content chunk counts, the counts are the server's.
 */
class LlamaCompletionStreamTest {
    private static final long MS = 1_000_000L;

    static byte[] recorded() throws Exception {
        try (java.io.InputStream in = LlamaCompletionStreamTest.class.getResourceAsStream("/fixtures/llamacpp/completion-stream.sse")) {
            return in.readAllBytes();
        }
    }

    @Test
    void eachEventIsMeteredAsItArrivesAndTheServersCountsAreRead() throws Exception {
        String[] events = new String(recorded(), StandardCharsets.UTF_8).split("(?<=\n\n)");
        assertThat(events).hasSize(5);
        StreamTap tap = StreamTap.of("text/event-stream", 0);
        for (int i = 0; i < events.length; i++) {
            byte[] b = events[i].getBytes(StandardCharsets.UTF_8);
            tap.bytes(b, 0, b.length, (10 + 5L * i) * MS); // event i arrives at 10 + 5i ms
        }
        tap.end(40 * MS);
        assertThat(tap.firstContentNanos()).isEqualTo(10 * MS);
        assertThat(tap.lastContentNanos()).isEqualTo(25 * MS);
        assertThat(tap.contentChunks()).isEqualTo(4);
        assertThat(tap.sawEnd()).as("stop: true ends the stream").isTrue();
        assertThat(tap.streamError()).isNull();
        // timings.predicted_n 4, prompt_n 7: the engine's own counters
        assertThat(tap.tokens()).isEqualTo(new StreamTap.Tokens(4L, 7L, TokenSource.ENGINE));
        assertThat(tap.responseModel()).isEqualTo("tiny-llama-512x4h8f1408c4096v2-62b676aa.gguf");
    }

    @Test
    void aStreamCutBeforeItsStopChunkIsCutAndCountsItsChunksAsAnEstimate() throws Exception {
        String all = new String(recorded(), StandardCharsets.UTF_8);
        byte[] b = all.substring(0, all.indexOf("\"stop\":true") - 40).getBytes(StandardCharsets.UTF_8);
        StreamTap tap = StreamTap.of("text/event-stream", 0);
        tap.bytes(b, 0, b.length, 10 * MS);
        tap.end(20 * MS);
        assertThat(tap.sawEnd()).isFalse();
        assertThat(tap.streamError()).isEqualTo("cut");
        assertThat(tap.contentChunks()).isEqualTo(4);
        assertThat(tap.tokens()).isEqualTo(new StreamTap.Tokens(4L, null, TokenSource.ESTIMATE));
    }
}
