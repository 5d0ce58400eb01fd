package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tailwatch.core.http.BoundedJson;
import io.tailwatch.core.http.ProbeErrors;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every decoder of outside bytes, walked with streams shaped to defeat a bound kept line by line: one
 * event of many short lines, one line that never ends, many small events in one read, bytes with no line
 * end at all, and many comment lines. Each stream is 4 MiB, several times what any decoder may hold; the
 * decoder must hold no more than its bound at any point and end the stream as a classified failure
 * (malformed, over a bound), never by holding it.
 */
class DecoderBoundsTest {
    private static final long TOTAL = 4L << 20;

    /** A stream of {@code prefix} then {@code unit} repeated up to {@link #TOTAL} bytes, read in {@code chunk}-byte reads. */
    record Shape(String name, String prefix, String unit, int chunk) {
        void feed(Function<byte[], Boolean> sink) {
            byte[] unitBytes = unit.getBytes(StandardCharsets.UTF_8);
            byte[] buf = new byte[chunk];
            byte[] head = prefix.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(head, 0, buf, 0, head.length);
            int fill = head.length;
            long sent = 0;
            int u = 0;
            while (sent < TOTAL) {
                while (fill < buf.length) {
                    buf[fill++] = unitBytes[u];
                    u = (u + 1) % unitBytes.length;
                }
                if (!sink.apply(buf)) {
                    return;
                }
                sent += buf.length;
                fill = 0;
            }
        }

        InputStream stream() {
            return new InputStream() {
                final byte[] unitBytes = unit.getBytes(StandardCharsets.UTF_8);
                final byte[] head = prefix.getBytes(StandardCharsets.UTF_8);
                long pos;

                @Override
                public int read() {
                    if (pos >= TOTAL) {
                        return -1;
                    }
                    long p = pos++;
                    return p < head.length ? head[(int) p] : unitBytes[(int) ((p - head.length) % unitBytes.length)];
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    if (pos >= TOTAL) {
                        return -1;
                    }
                    int n = (int) Math.min(len, TOTAL - pos);
                    for (int i = 0; i < n; i++) {
                        b[off + i] = (byte) read();
                    }
                    return n;
                }
            };
        }
    }

    private static final String SHORT = "x".repeat(200);

    /** Shapes of an event stream (SSE) or of lines (NDJSON). */
    static final List<Shape> LINE_SHAPES = List.of(
            new Shape("one event of many short data lines", "", "data: " + SHORT + "\n", 8192),
            new Shape("one line that never ends", "data: ", "y".repeat(4096), 8192),
            new Shape("many small events in one read", "", "data: {}\n\n", 1 << 20),
            new Shape("many small lines in one read", "", "{}\n", 1 << 20),
            new Shape("bytes with no line end", "", "{\"a\":", 8192),
            new Shape("one event of many one-byte lines", "", "data:\n", 8192));

    @Test
    void sseDecoderHoldsNoMoreThanItsBoundAndSaysItOverflowed() {
        for (Shape s : LINE_SHAPES) {
            SseDecoder d = new SseDecoder();
            int[] maxHeld = {0};
            long[] events = {0};
            s.feed(b -> {
                List<SseDecoder.Event> out = d.feed(b, 0, b.length);
                assertThat(out.size()).as(s.name()).isLessThanOrEqualTo(SseDecoder.MAX_PENDING_EVENTS);
                for (SseDecoder.Event e : out) {
                    assertThat(e.data().length()).as(s.name()).isLessThanOrEqualTo(SseDecoder.DEFAULT_MAX_LINE_BYTES);
                }
                events[0] += out.size();
                maxHeld[0] = Math.max(maxHeld[0], d.held());
                return true;
            });
            assertThat(maxHeld[0]).as(s.name()).isLessThanOrEqualTo(3 * SseDecoder.DEFAULT_MAX_LINE_BYTES);
            if (!s.name().equals("many small lines in one read")) {
                assertThat(d.overflowed()).as(s.name()).isTrue();
            }
        }
    }

    @Test
    void ndjsonDecoderHoldsNoMoreThanItsBound() {
        for (Shape s : LINE_SHAPES) {
            NdjsonDecoder d = new NdjsonDecoder();
            int[] maxHeld = {0};
            s.feed(b -> {
                assertThat(d.feed(b, 0, b.length).size()).as(s.name()).isLessThanOrEqualTo(NdjsonDecoder.MAX_PENDING_LINES);
                maxHeld[0] = Math.max(maxHeld[0], d.held());
                return true;
            });
            assertThat(maxHeld[0]).as(s.name()).isLessThanOrEqualTo(NdjsonDecoder.DEFAULT_MAX_LINE_BYTES);
            boolean longLine = s.name().contains("never ends") || s.name().contains("no line end");
            boolean manyLines = s.name().contains("in one read");
            assertThat(d.overflowed()).as(s.name()).isEqualTo(longLine || manyLines);
        }
    }

    /** The probes' parsers and the proxy's taps: each shaped stream is a classified failure. */
    @Test
    void everyStreamParserEndsAShapedStreamAsMalformed() {
        for (Shape s : LINE_SHAPES) {
            for (StreamParser p : List.of(new OpenAiStreamParser(), new OllamaStreamParser(),
                    new OpenAiStreamParser(StreamTap.MAX_LINE_BYTES), new OllamaStreamParser(StreamTap.MAX_LINE_BYTES))) {
                Measurement m = new Measurement(0, false);
                s.feed(b -> {
                    p.bytes(ByteBuffer.wrap(b), 1, m);
                    return !m.isFinished();
                });
                if (!m.isFinished()) {
                    p.end(2, m);
                }
                assertThat(m.errorType).as(p.getClass().getSimpleName() + ": " + s.name())
                        .isIn(ProbeErrors.MALFORMED, ProbeErrors.CUT);
                if (!s.name().contains("many small lines")) {
                    // An NDJSON reader may meet "{}" lines (valid JSON) until the stream is cut.
                    assertThat(m.errorType).as(p.getClass().getSimpleName() + ": " + s.name()).isEqualTo(ProbeErrors.MALFORMED);
                }
            }
        }
    }

    @Test
    void theProxyTapsStopOnAShapedStreamWithoutCountingIt() {
        for (Shape s : LINE_SHAPES) {
            for (String type : List.of("text/event-stream", "application/x-ndjson", "application/json")) {
                StreamTap tap = StreamTap.of(type, 0);
                s.feed(b -> {
                    tap.bytes(b, 0, b.length, 1);
                    return true;
                });
                tap.end(2);
                assertThat(tap.tokens().output()).as(type + ": " + s.name()).isNull();
                if (tap.format() != StreamTap.Format.JSON) {
                    assertThat(tap.streamError()).as(type + ": " + s.name()).isIn(ProbeErrors.MALFORMED, ProbeErrors.CUT);
                }
            }
        }
    }

    /** A whole JSON body: a string that never ends, nesting without end, an array of millions, keys without end. */
    @Test
    void boundedJsonEndsEveryShapeAsAnErrorOrACutTree() {
        List<Shape> json = List.of(
                new Shape("a string that never ends", "{\"a\":\"", "z".repeat(1000), 8192),
                new Shape("nesting without end", "", "{\"a\":", 8192),
                new Shape("an array of millions", "[", "1,", 8192),
                new Shape("keys without end", "{", "\"k\":1,", 8192),
                new Shape("a key that never ends", "{\"", "k".repeat(1000), 8192));
        for (Shape s : json) {
            Throwable t = catchThrowable(() -> {
                BoundedJson.Result r = BoundedJson.read(s.stream(), BoundedJson.Limits.DEFAULT);
                throw new AssertionError(s.name() + " read whole: " + r.describeCuts(BoundedJson.Limits.DEFAULT));
            });
            assertThat(t).as(s.name()).isInstanceOf(IOException.class);
            if (t instanceof BoundedJson.Partial p) {
                assertThat(p.partial().complete()).isFalse();
            }
        }
    }

    /** An engine's /metrics: samples without end, a line that never ends, comments without end. */
    @Test
    void prometheusTextParserEndsEveryShapeAsAClassifiedFailure() {
        List<Shape> text = List.of(
                new Shape("samples without end", "", "vllm:num_requests_running 1\n", 8192),
                new Shape("a label value that never ends", "vllm:x{a=\"", "v".repeat(1000), 8192),
                new Shape("no line end at all", "", "vllm:num_requests_running 1 ", 8192));
        for (Shape s : text) {
            Throwable t = catchThrowable(() -> io.tailwatch.daemon.signals.PrometheusTextParser.parse(s.stream(),
                    n -> true, 100_000, 1_000));
            assertThat(t).as(s.name()).isNotNull();
            assertThat(t.getClass().getSimpleName()).as(s.name()).isIn("FormatException", "OverLimit");
        }
    }
}
