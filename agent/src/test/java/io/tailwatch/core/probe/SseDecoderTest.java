package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseDecoderTest {
    static final String SAMPLE = ": keepalive 1/4\r\n\r\n"
            + "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n"
            + "data:{\"choices\":[{\"delta\":{\"content\":\"h\u00e9llo \u65e5\u672c \uD83D\uDE00\"}}]}\n\n"
            + "event: message\nid: 7\ndata: line one\ndata: line two\n\n"
            + ": ping\n\n"
            + "data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\r\r"
            + "data: [DONE]\n\n";

    static List<SseDecoder.Event> decodeWhole(byte[] b) {
        SseDecoder d = new SseDecoder();
        List<SseDecoder.Event> out = new ArrayList<>(d.feed(b, 0, b.length));
        out.addAll(d.finish());
        return out;
    }

    static List<SseDecoder.Event> decodeSplit(byte[] b, List<Integer> cuts) {
        SseDecoder d = new SseDecoder();
        return InPieces.decode(b, cuts, d::feed, d::finish);
    }

    @Test
    void decodesEveryPartOfTheFormat() {
        List<SseDecoder.Event> events = decodeWhole(SAMPLE.getBytes(StandardCharsets.UTF_8));
        assertThat(events).extracting(SseDecoder.Event::data).containsExactly(
                "{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}",
                "{\"choices\":[{\"delta\":{\"content\":\"h\u00e9llo \u65e5\u672c \uD83D\uDE00\"}}]}",
                "line one\nline two",
                "{\"choices\":[],\"usage\":{\"completion_tokens\":3}}",
                "[DONE]");
        assertThat(events.get(2).event()).isEqualTo("message");
        assertThat(events.get(2).id()).isEqualTo("7");
    }

    @Test
    void countsCommentsAndSkipsThem() {
        SseDecoder d = new SseDecoder();
        byte[] b = SAMPLE.getBytes(StandardCharsets.UTF_8);
        d.feed(b, 0, b.length);
        assertThat(d.comments()).isEqualTo(2);
    }

    @Test
    void splittingAtEveryByteOffsetGivesTheSameEvents() {
        byte[] b = SAMPLE.getBytes(StandardCharsets.UTF_8);
        List<SseDecoder.Event> whole = decodeWhole(b);
        for (int i = 0; i <= b.length; i++) {
            assertThat(decodeSplit(b, List.of(i))).as("split at %d", i).isEqualTo(whole);
        }
        // and byte by byte: multi-byte characters arrive one byte at a time
        List<Integer> every = new ArrayList<>();
        for (int i = 1; i < b.length; i++) {
            every.add(i);
        }
        assertThat(decodeSplit(b, every)).isEqualTo(whole);
    }

    @Test
    void lastEventWithoutBlankLineIsDeliveredAtEnd() {
        byte[] b = "data: {\"a\":1}\n\ndata: [DONE]".getBytes(StandardCharsets.UTF_8);
        assertThat(decodeWhole(b)).extracting(SseDecoder.Event::data).containsExactly("{\"a\":1}", "[DONE]");
    }

    @Test
    void overlongLineIsFlaggedNotBuffered() {
        SseDecoder d = new SseDecoder(64);
        byte[] b = ("data: " + "x".repeat(1000) + "\n\n").getBytes(StandardCharsets.UTF_8);
        d.feed(b, 0, b.length);
        assertThat(d.overflowed()).isTrue();
    }

    @Test
    void garbageBytesNeverThrow() {
        byte[] b = {(byte) 0xff, (byte) 0xfe, '\n', 'd', 'a', 't', 'a', ':', (byte) 0xc3, '\n', '\n', 0, 1, 2};
        assertThat(decodeWhole(b)).hasSize(1).first().extracting(SseDecoder.Event::data).asString().contains("\uFFFD");
    }

    static boolean isWellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    static java.util.stream.Stream<Long> seeds() {
        return io.tailwatch.testing.RandomCases.seeds(300);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.MethodSource("seeds")
    void anyChunkingOfAnyStreamDecodesAlike(long seed) {
        java.util.Random r = new java.util.Random(seed);
        List<String> data = new ArrayList<>();
        for (int i = r.nextInt(6); i > 0; i--) {
            String d = io.tailwatch.testing.RandomCases.text(r, 40).stripLeading();
            data.add(d);
        }
        String nl = switch (r.nextInt(3)) {
            case 0 -> "\n";
            case 1 -> "\r\n";
            default -> "\r";
        };
        StringBuilder sb = new StringBuilder();
        for (String d : data) {
            sb.append(": keepalive").append(nl).append("data: ").append(d).append(nl).append(nl);
        }
        byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
        List<SseDecoder.Event> got = decodeSplit(b, io.tailwatch.testing.RandomCases.cuts(r, 12, b.length));
        assertThat(got).extracting(SseDecoder.Event::data).containsExactlyElementsOf(data);
    }
}
