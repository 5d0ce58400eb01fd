package io.tailwatch.core.probe;

import static io.tailwatch.core.probe.StreamParserTest.OPENAI_STREAM;
import static io.tailwatch.core.probe.StreamParserTest.EMPTY;
import static io.tailwatch.core.probe.StreamParserTest.ROLE;
import static io.tailwatch.core.probe.StreamParserTest.content;
import static io.tailwatch.core.probe.StreamParserTest.sse;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.http.ProbeErrors;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The proxy's tap reads an SSE stream from its bytes with a scanner of its own; on every stream here it must
 * measure exactly what the probes' parser measures (the same first and last content, chunks, end marker, failure
 * class, model and counts), whole and cut into arbitrary pieces.
 */
class StreamTapAgreementTest {
    private static final String USAGE = "{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2}}";

    /** What a measurement of a stream says, as the tap exposes it. */
    record Seen(long first, long last, int chunks, boolean done, String error, String model, StreamTap.Tokens tokens) {
    }

    static List<byte[]> streams() throws Exception {
        List<String> s = new ArrayList<>();
        s.add(OPENAI_STREAM);
        s.add(": keepalive\n\n" + sse(ROLE, EMPTY, content("a"), content("b"), USAGE, "[DONE]"));
        s.add(sse("{\"model\":\"m1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}",
                "{\"model\":\"m2\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"y\"}},{\"delta\":{\"content\":\"z\"}}]}",
                "{\"model\":null,\"choices\":[]}", "{\"model\":{\"a\":1},\"choices\":[]}", "[DONE]"));
        for (String f : List.of("reasoning", "reasoning_content", "thinking")) {
            s.add(sse(ROLE, "{\"choices\":[{\"delta\":{\"" + f + "\":\"hm\"}}]}", "[DONE]"));
        }
        // a message instead of a delta, a text completion, a delta that is null, choices that are not a list
        s.add(sse("{\"choices\":[{\"message\":{\"content\":\"whole\"}}]}", "{\"choices\":[{\"text\":\"t\"}]}",
                "{\"choices\":[{\"delta\":null,\"message\":{\"content\":\"m\"}}]}", "{\"choices\":{\"a\":1}}",
                "{\"choices\":[1,[2],{\"delta\":{\"content\":\"late\"}}]}", "{\"choices\":[[{\"delta\":{\"content\":\"n\"}}]]}", "[DONE]"));
        s.add(sse("{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":0}}",
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}", "[DONE]"));
        s.add(sse(content("a"), "{\"choices\":[],\"timings\":{\"prompt_n\":7,\"prompt_ms\":12.5,\"predicted_n\":2,"
                + "\"predicted_per_second\":40.0}}", "[DONE]"));
        // counts out of range or not whole
        s.add(sse(content("a"), "{\"choices\":[],\"usage\":{\"prompt_tokens\":-1,\"completion_tokens\":2.5}}", "[DONE]"));
        s.add(sse(content("a"), "{\"choices\":[],\"usage\":{\"completion_tokens\":99999999999999999999999}}", "[DONE]"));
        s.add(sse(content("a"), "{\"choices\":[],\"usage\":{\"completion_tokens\":\"7\"},\"timings\":[1]}", "[DONE]"));
        s.add(sse(content("a"), "{\"error\":{\"message\":\"out of memory\"}}", content("b")));
        s.add(sse(content("a"), "{\"error\":null,\"choices\":[{\"delta\":{\"content\":\"b\"}}]}", "[DONE]"));
        s.add("data: " + content("a") + "\n\nevent: error\ndata: {\"message\":\"x\"}\n\n");
        s.add("event: error\n\n" + sse(content("a"), "[DONE]"));
        s.add(sse(content("a"), USAGE));
        s.add(sse(content("a")) + "data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}");
        s.add(sse(content("a")) + "data: {\"choices\":[{\"delta\":{\"con");
        s.add(sse(content("a")) + "data: [DONE]");
        s.add("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: \u0000\u00ff<html>\n\n");
        s.add(sse("[1,2]"));
        s.add(sse("\"text\""));
        s.add(sse(content("a"), "", "[DONE]"));
        s.add(sse(content("a"), "{\"choices\":[{\"delta\":{\"content\":\"b\"}}]} trailing", "{\"a\":}", "[DONE]"));
        // two data lines in one event, CR and CRLF line ends, a field without a value, an id and a retry
        s.add("data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"a\"}}]}\n\nid: 7\nretry: 10\ndata\n\n"
                + "data:" + content("b") + "\r\rdata: " + content("c") + "\r\n\r\ndata: [DONE]\r\n\r\n");
        s.add(sse("  " + content("a") + "  ", " [DONE] "));
        // llama.cpp's /completion stream: top-level content, stop: true with its count, no [DONE]
        s.add(sse("{\"content\":\"a\",\"stop\":false}", "{\"content\":\"b\",\"stop\":false,\"tokens_predicted\":1}",
                "{\"content\":\"\",\"stop\":true,\"tokens_predicted\":2,\"timings\":{\"predicted_n\":2,\"prompt_n\":4}}"));
        s.add(sse("{\"content\":\"a\",\"stop\":\"true\",\"tokens_predicted\":5}", "{\"content\":null,\"stop\":true}"));
        s.add(sse("{\"content\":\"a\",\"choices\":null,\"stop\":true}", "[DONE]"));
        s.add(sse(content("a"), "{\"usage\":{\"completion_tokens\":4},\"stats\":{\"tokens_per_second\":3.5}}", "[DONE]"));
        s.add(sse(content("\\u00fc\\ud83d\\ude00 \\\"q\\\""), "[DONE]"));
        // LM Studio's native chat: named events that end with chat.end (its stats give the counts), or without it
        String start = lms("chat.start", "{\"type\":\"chat.start\",\"model_instance_id\":\"qwen/q3\"}")
                + lms("prompt_processing.progress", "{\"type\":\"prompt_processing.progress\",\"progress\":0.5}")
                + lms("reasoning.delta", "{\"type\":\"reasoning.delta\",\"content\":\"hm\"}")
                + lms("message.delta", "{\"type\":\"message.delta\",\"content\":\" one\"}")
                + lms("message.delta", "{\"type\":\"message.delta\",\"content\":\"\"}");
        s.add(start + lms("chat.end", "{\"type\":\"chat.end\",\"result\":{\"model_instance_id\":\"qwen/q3\",\"output\":[],"
                + "\"stats\":{\"input_tokens\":11,\"total_output_tokens\":3,\"tokens_per_second\":20.5,"
                + "\"time_to_first_token_seconds\":0.25}}}"));
        s.add(start + lms("chat.end", "{\"type\":\"chat.end\",\"result\":{\"stats\":{\"total_output_tokens\":-3}}}"));
        s.add(start);
        s.add(start + lms("error", "{\"type\":\"error\",\"error\":{\"message\":\"model crashed\"}}"));
        s.add(lms("model_load.end", "{\"type\":\"model_load.end\",\"load_time_seconds\":1.5}") + start + "event: chat.end\ndata: {\"res");
        // an event cut inside an array of objects under a field read as a tree, then a whole one
        s.add("data: {\"usage\":[{}\n\n" + sse(content("a"), "[DONE]"));
        s.add("data: {\"error\":{\"details\":[{\"a\":1}\n\n" + sse(content("a"), "[DONE]"));
        s.add(sse(content("a")) + "data: {\"timings\":[{\"x\":{}},{}\n\n" + sse(content("b"), "[DONE]"));
        s.add(longStream());
        List<byte[]> out = new ArrayList<>();
        for (String x : s) {
            out.add(x.getBytes(StandardCharsets.UTF_8));
        }
        // bytes that are not UTF-8 inside a content string, and inside the JSON's structure
        ByteArrayOutputStream bad = new ByteArrayOutputStream();
        bad.write("data: {\"choices\":[{\"delta\":{\"content\":\"".getBytes(StandardCharsets.UTF_8));
        bad.write(new byte[] {(byte) 0xff, (byte) 0xc3});
        bad.write(("\"}}]}\n\n" + sse(content("b"), "[DONE]")).getBytes(StandardCharsets.UTF_8));
        out.add(bad.toByteArray());
        bad.reset();
        bad.write("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]".getBytes(StandardCharsets.UTF_8));
        bad.write(new byte[] {(byte) 0xff});
        bad.write(("}\n\n" + sse(content("b"), "[DONE]")).getBytes(StandardCharsets.UTF_8));
        out.add(bad.toByteArray());
        out.add(LlamaCompletionStreamTest.recorded());
        // a line over the tap's bound, and an event of many short data lines over its line count
        out.add((sse(content("a")) + "data: " + "x".repeat(StreamTap.MAX_LINE_BYTES + 10) + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.add(("data: 1\n".repeat(SseDecoder.MAX_EVENT_LINES + 1) + "\n").getBytes(StandardCharsets.UTF_8));
        return out;
    }

    /**
     * A stream several times as long as one parser of the tap reads, each event with a field name never seen before,
     * the model changing every 500 events, an event with more after its object midway, and the usage at the end.
     */
    static String longStream() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            b.append("data: {\"model\":\"m").append(i / 500).append("\",\"x").append(i).append("\":").append(i)
                    .append(",\"choices\":[{\"delta\":{\"content\":\"t").append(i).append("\"}}]}")
                    .append(i == 1500 ? " {\"choices\":[]}" : "").append("\n\n");
        }
        return b + sse("{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":3000}}", "[DONE]");
    }

    @Test
    void aLongStreamIsReadByOneParserAtATimeEachRenewedAfterItsBound() {
        byte[] b = longStream().getBytes(StandardCharsets.UTF_8);
        SseTap tap = new SseTap(StreamTap.MAX_LINE_BYTES);
        Measurement m = new Measurement(0, false);
        tap.bytes(b, 0, b.length, 1, m);
        tap.end(2, m);
        assertThat(m.contentChunks).isEqualTo(3000);
        assertThat(m.responseModel).isEqualTo("m5");
        assertThat(m.usageOutput).isEqualTo(3000L);
        // one parser per PARSER_BYTES read (and the event that passes it, under 100 bytes here), one more after the
        // event with more after its object; the parser reads each event's data, not its "data: " and blank line
        long fed = b.length - 8L * 3002;
        assertThat(fed).isGreaterThan(3L * SseTap.PARSER_BYTES);
        assertThat((long) tap.parsersMade()).isBetween(fed / (SseTap.PARSER_BYTES + 100) + 1, fed / SseTap.PARSER_BYTES + 2);
        SseTap one = new SseTap(StreamTap.MAX_LINE_BYTES);
        byte[] plain = OPENAI_STREAM.getBytes(StandardCharsets.UTF_8);
        one.bytes(plain, 0, plain.length, 1, new Measurement(0, false));
        assertThat(one.parsersMade()).isEqualTo(1);
        // an event over LARGE_EVENT is the last its parser reads: the next one starts a new parser
        SseTap large = new SseTap(StreamTap.MAX_LINE_BYTES);
        byte[] two = sse(content("x".repeat(SseTap.LARGE_EVENT)), content("a"), content("b"), "[DONE]").getBytes(StandardCharsets.UTF_8);
        Measurement seen = new Measurement(0, false);
        large.bytes(two, 0, two.length, 1, seen);
        assertThat(seen.contentChunks).isEqualTo(3);
        assertThat(large.parsersMade()).isEqualTo(2);
    }

    private static String lms(String event, String data) {
        return "event: " + event + "\ndata: " + data + "\n\n";
    }

    static Seen probe(byte[] b, List<Integer> cuts) {
        OpenAiStreamParser p = new OpenAiStreamParser(StreamTap.MAX_LINE_BYTES);
        Measurement m = new Measurement(0, false);
        feed(b, cuts, (from, to, t) -> {
            if (!m.isFinished()) {
                p.bytes(ByteBuffer.wrap(b, from, to - from), t, m);
            }
        });
        if (!m.isFinished()) {
            p.end(Long.MAX_VALUE, m);
        }
        StreamTap.Tokens tokens;
        if (m.usageOutput != null && m.usageOutput > 0) {
            tokens = new StreamTap.Tokens(m.usageOutput, m.usageInput, io.tailwatch.metrics.AttrValues.TokenSource.USAGE);
        } else if (m.engineOutput != null) {
            tokens = new StreamTap.Tokens(m.engineOutput, m.engineInput, io.tailwatch.metrics.AttrValues.TokenSource.ENGINE);
        } else if (m.usageOutput != null) {
            tokens = new StreamTap.Tokens(m.usageOutput, m.usageInput, io.tailwatch.metrics.AttrValues.TokenSource.USAGE);
        } else if (m.contentChunks > 0) {
            tokens = new StreamTap.Tokens((long) m.contentChunks, null, io.tailwatch.metrics.AttrValues.TokenSource.ESTIMATE);
        } else {
            tokens = new StreamTap.Tokens(null, null, null);
        }
        return new Seen(m.firstContentAt, m.lastContentAt, m.contentChunks, m.doneAt >= 0, m.errorType, m.responseModel, tokens);
    }

    static Seen tap(byte[] b, List<Integer> cuts) {
        StreamTap tap = StreamTap.of("text/event-stream", 0);
        feed(b, cuts, (from, to, t) -> tap.bytes(b, from, to - from, t));
        tap.end(Long.MAX_VALUE);
        return new Seen(tap.firstContentNanos(), tap.lastContentNanos(), tap.contentChunks(), tap.sawEnd(),
                tap.streamError(), tap.responseModel(), tap.tokens());
    }

    interface Piece {
        void feed(int from, int to, long nanos);
    }

    /** Feeds {@code b} cut at {@code cuts}; piece i arrives at i + 1. */
    static void feed(byte[] b, List<Integer> cuts, Piece p) {
        int pos = 0;
        long t = 1;
        for (int c : cuts) {
            int e = Math.min(b.length, Math.max(pos, c));
            p.feed(pos, e, t++);
            pos = e;
        }
        p.feed(pos, b.length, t);
    }

    @Test
    void theTapMeasuresEveryStreamAsTheProbesParserDoes() throws Exception {
        List<byte[]> all = streams();
        Random random = new Random(43);
        for (int i = 0; i < all.size(); i++) {
            byte[] b = all.get(i);
            List<List<Integer>> cutsOf = new ArrayList<>();
            cutsOf.add(List.of());
            List<Integer> everyByte = new ArrayList<>();
            for (int k = 1; k < Math.min(b.length, 4096); k++) {
                everyByte.add(k);
            }
            cutsOf.add(everyByte);
            for (int r = 0; r < 20; r++) {
                cutsOf.add(io.tailwatch.testing.RandomCases.cuts(random, 1 + random.nextInt(12), b.length));
            }
            for (List<Integer> cuts : cutsOf) {
                Seen expected = probe(b, cuts);
                assertThat(tap(b, cuts)).as("stream %d (%s), cut at %s", i,
                        new String(b, 0, Math.min(b.length, 200), StandardCharsets.UTF_8), cuts.size() > 20 ? "every byte" : cuts)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void theStreamsCoverEveryOutcome() throws Exception {
        List<String> errors = new ArrayList<>();
        int done = 0;
        for (byte[] b : streams()) {
            Seen s = tap(b, List.of());
            errors.add(s.error());
            done += s.done() ? 1 : 0;
        }
        assertThat(errors).contains(null, ProbeErrors.CUT, ProbeErrors.MALFORMED, ProbeErrors.STREAM_ERROR);
        assertThat(done).isGreaterThan(10);
    }
}
