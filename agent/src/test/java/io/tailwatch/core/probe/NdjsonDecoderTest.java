package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class NdjsonDecoderTest {
    static final String SAMPLE = "{\"message\":{\"content\":\"\u00fcber\"},\"done\":false}\r\n"
            + "\n"
            + "{\"message\":{\"content\":\"\u65e5\u672c\uD83D\uDE00\"},\"done\":false}\n"
            + "   \n"
            + "{\"done\":true,\"eval_count\":2}\n";

    static List<String> decode(byte[] b, List<Integer> cuts) {
        NdjsonDecoder d = new NdjsonDecoder();
        return InPieces.decode(b, cuts, d::feed, d::finish);
    }

    @Test
    void linesWithCrlfAndBlankLines() {
        assertThat(decode(SAMPLE.getBytes(StandardCharsets.UTF_8), List.of())).containsExactly(
                "{\"message\":{\"content\":\"\u00fcber\"},\"done\":false}",
                "{\"message\":{\"content\":\"\u65e5\u672c\uD83D\uDE00\"},\"done\":false}",
                "{\"done\":true,\"eval_count\":2}");
    }

    @Test
    void splittingAtEveryByteOffsetGivesTheSameLines() {
        byte[] b = SAMPLE.getBytes(StandardCharsets.UTF_8);
        List<String> whole = decode(b, List.of());
        for (int i = 0; i <= b.length; i++) {
            for (int j = i; j <= b.length; j += 7) {
                assertThat(decode(b, List.of(i, j))).as("split at %d and %d", i, j).isEqualTo(whole);
            }
        }
    }

    @Test
    void unterminatedLastLineIsReturnedAndFlagged() {
        NdjsonDecoder d = new NdjsonDecoder();
        byte[] b = "{\"a\":1}\n{\"done\":tr".getBytes(StandardCharsets.UTF_8);
        assertThat(d.feed(b, 0, b.length)).containsExactly("{\"a\":1}");
        assertThat(d.finish()).containsExactly("{\"done\":tr");
        assertThat(d.endedMidLine()).isTrue();
    }

    static java.util.stream.Stream<Long> seeds() {
        return io.tailwatch.testing.RandomCases.seeds(300);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.MethodSource("seeds")
    void anyChunkingDecodesAlike(long seed) {
        byte[] b = SAMPLE.getBytes(StandardCharsets.UTF_8);
        List<Integer> cuts = io.tailwatch.testing.RandomCases.cuts(new java.util.Random(seed), 12, b.length);
        assertThat(decode(b, cuts)).isEqualTo(decode(b, List.of()));
    }
}
