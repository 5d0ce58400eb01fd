package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stream parsers on every pitfall of the wire formats, fed in arbitrary pieces. */
class StreamParserTest {
    static final ProbeRequest REQ = new ProbeRequest("m", 64, 8, 0,
            java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(2));

    /** Feeds {@code text} split at {@code cuts}; piece i arrives at t = (i+1) ms. */
    static Measurement run(StreamParser p, String text, List<Integer> cuts, boolean end) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        Measurement m = new Measurement(0);
        m.headers(0, 200);
        int pos = 0;
        long t = 1_000_000;
        for (int c : cuts) {
            int e = Math.min(b.length, Math.max(pos, c));
            p.bytes(ByteBuffer.wrap(b, pos, e - pos), t, m);
            t += 1_000_000;
            pos = e;
        }
        p.bytes(ByteBuffer.wrap(b, pos, b.length - pos), t, m);
        if (end) {
            p.end(t + 1_000_000, m);
        }
        return m;
    }

    static ProbeResult result(Measurement m) {
        return AbstractEngineClient.result(m, Instant.EPOCH, "m", REQ);
    }

    static String sse(String... data) {
        StringBuilder sb = new StringBuilder();
        for (String d : data) {
            sb.append("data: ").append(d).append("\n\n");
        }
        return sb.toString();
    }

    static final String ROLE = "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}";
    static final String EMPTY = "{\"choices\":[{\"index\":0,\"delta\":{}}]}";

    static String content(String t) {
        return "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + t + "\"}}]}";
    }

    @Test
    void roleAndEmptyChunksDoNotCountAsFirstToken() {
        String s = ": keepalive 1/2\n\n" + sse(ROLE, EMPTY) + sse(content("a")) + sse(content("b"),
                "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}",
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":4}}}",
                "[DONE]");
        int firstContent = s.indexOf("\"a\"");
        Measurement m = run(new OpenAiStreamParser(), s, List.of(firstContent - 5, firstContent + 40), true);
        ProbeResult r = result(m);
        assertThat(r.success()).isTrue();
        assertThat(r.ttftSeconds()).isEqualTo(0.002);
        assertThat(r.outputTokens()).isEqualTo(2L);
        assertThat(r.inputTokens()).isEqualTo(9L);
        assertThat(r.cachedTokens()).isEqualTo(4L);
        assertThat(r.tokenSource()).isEqualTo("usage");
    }

    @Test
    void reasoningCountsAsFirstTokenUnderAnyName() {
        for (String field : List.of("reasoning", "reasoning_content", "thinking")) {
            String s = sse(ROLE, "{\"choices\":[{\"delta\":{\"" + field + "\":\"hm\"}}]}", "[DONE]");
            ProbeResult r = result(run(new OpenAiStreamParser(), s, List.of(s.indexOf(field)), true));
            assertThat(r.ttftSeconds()).as(field).isEqualTo(0.002);
        }
    }

    @Test
    void zeroedUsageOnEveryChunkThenRealCountsAtTheEnd() {
        String zero = "{\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":0,\"completion_tokens\":0}}";
        String s = sse(zero, zero, zero, "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}", "[DONE]");
        ProbeResult r = result(run(new OpenAiStreamParser(), s, List.of(), true));
        assertThat(r.outputTokens()).isEqualTo(3L);
        assertThat(r.tokenSource()).isEqualTo("usage");
    }

    @Test
    void withoutUsageTokensAreEstimatedAndMarked() {
        String s = sse(content("a"), content("b"), content("c"), "[DONE]");
        ProbeResult r = result(run(new OpenAiStreamParser(), s, List.of(10, 60, 120), true));
        assertThat(r.outputTokens()).isEqualTo(3L);
        assertThat(r.tokenSource()).isEqualTo("estimate");
        assertThat(r.chunkGapsSeconds()).hasSize(2);
    }

    @Test
    void llamaCppTimingsAreTheEnginesCounters() {
        String s = sse(content("a"), content("b"),
                "{\"choices\":[],\"timings\":{\"prompt_n\":7,\"prompt_ms\":12.5,\"predicted_n\":2,\"predicted_per_second\":40.0}}",
                "[DONE]");
        ProbeResult r = result(run(new OpenAiStreamParser(), s, List.of(), true));
        assertThat(r.tokenSource()).isEqualTo("engine");
        assertThat(r.outputTokens()).isEqualTo(2L);
        assertThat(r.serverPromptSeconds()).isEqualTo(0.0125);
        assertThat(r.serverDecodeTokensPerSecond()).isEqualTo(40.0);
    }

    @Test
    void errorObjectMidStreamIsStreamError() {
        String s = sse(content("a"), "{\"error\":{\"message\":\"out of memory\",\"type\":\"server_error\"}}", content("b"));
        ProbeResult r = result(run(new OpenAiStreamParser(), s, List.of(), true));
        assertThat(r.success()).isFalse();
        assertThat(r.errorType()).isEqualTo("stream_error");
        assertThat(r.errorMessage()).contains("out of memory");
        String ollama = "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"error\":\"model runner crashed\"}\n";
        ProbeResult o = result(run(new OllamaStreamParser(), ollama, List.of(), true));
        assertThat(o.errorType()).isEqualTo("stream_error");
        assertThat(o.errorMessage()).contains("model runner crashed");
    }

    @Test
    void missingDoneMarkerIsCut() {
        String s = sse(content("a"), "{\"choices\":[],\"usage\":{\"completion_tokens\":1}}");
        ProbeResult r = result(run(new OpenAiStreamParser(), s, List.of(), true));
        assertThat(r.errorType()).isEqualTo("cut");
        String o = "{\"message\":{\"content\":\"a\"},\"done\":false}\n{\"message\":{\"content\":\"b\"},\"do";
        assertThat(result(run(new OllamaStreamParser(), o, List.of(), true)).errorType()).isEqualTo("cut");
    }

    @Test
    void garbageIsMalformed() {
        String s = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: \u0000\u00ff<html>\n\n";
        assertThat(result(run(new OpenAiStreamParser(), s, List.of(), true)).errorType()).isEqualTo("malformed");
        assertThat(result(run(new OllamaStreamParser(), "<html>oops</html>\n", List.of(), true)).errorType())
                .isEqualTo("malformed");
        assertThat(result(run(new OpenAiStreamParser(), sse("[1,2]"), List.of(), true)).errorType())
                .isEqualTo("malformed");
    }

    @Test
    void ollamaFinalLineYieldsServerTimingsAndColdLoad() {
        String s = "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\n"
                + "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"thinking\":\"hm\"},\"done\":false}\n"
                + "{\"model\":\"m\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,"
                + "\"total_duration\":10706818083,\"load_duration\":6338219291,\"prompt_eval_count\":26,"
                + "\"prompt_eval_duration\":130079000,\"eval_count\":259,\"eval_duration\":4232710000}\n";
        ProbeResult r = result(run(new OllamaStreamParser(), s, List.of(30, 120), true));
        assertThat(r.success()).isTrue();
        assertThat(r.tokenSource()).isEqualTo("engine");
        assertThat(r.outputTokens()).isEqualTo(259L);
        assertThat(r.inputTokens()).isEqualTo(26L);
        assertThat(r.loadSeconds()).isEqualTo(6.338219291);
        assertThat(r.serverPromptSeconds()).isEqualTo(0.130079);
        assertThat(r.serverDecodeTokensPerSecond()).isCloseTo(259 / 4.23271, org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void ollamaFinalLineWithoutOptionalCountersStillSucceeds() {
        String s = "{\"response\":\"a\",\"done\":false}\n{\"response\":\"\",\"done\":true}\n";
        ProbeResult r = result(run(new OllamaStreamParser(), s, List.of(), true));
        assertThat(r.success()).isTrue();
        assertThat(r.loadSeconds()).isNull();
        assertThat(r.tokenSource()).isEqualTo("estimate");
        assertThat(r.cachedTokens()).isNull();
    }

    @Test
    void ollamaFinalLineTellsThePromptTokensItsRunnerHadCached() {
        String s = "{\"response\":\"a\",\"done\":false}\n{\"response\":\"\",\"done\":true,\"prompt_eval_count\":40,"
                + "\"prompt_eval_cached_count\":32,\"eval_count\":1,\"eval_duration\":1000000}\n";
        ProbeResult r = result(run(new OllamaStreamParser(), s, List.of(), true));
        assertThat(r.success()).isTrue();
        assertThat(r.inputTokens()).isEqualTo(40L);
        assertThat(r.cachedTokens()).isEqualTo(32L);
    }

    static final String OPENAI_STREAM = ": keepalive 1/3\r\n\r\n" + sse(ROLE, content("\u00fcber"), content("\u65e5\u672c"),
            "{\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":2}}", "[DONE]").replace("\n", "\r\n");

    static java.util.stream.Stream<Long> seeds() {
        return io.tailwatch.testing.RandomCases.seeds(200);
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "seed {0}")
    @org.junit.jupiter.params.provider.MethodSource("seeds")
    void openAiOutcomeDoesNotDependOnHowBytesAreSplit(long seed) {
        List<Integer> sorted = io.tailwatch.testing.RandomCases.cuts(new java.util.Random(seed), 12,
                OPENAI_STREAM.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        ProbeResult whole = result(run(new OpenAiStreamParser(), OPENAI_STREAM, List.of(), true));
        ProbeResult split = result(run(new OpenAiStreamParser(), OPENAI_STREAM, sorted, true));
        assertThat(split.success()).isEqualTo(whole.success()).isTrue();
        assertThat(split.outputTokens()).isEqualTo(whole.outputTokens());
        assertThat(split.inputTokens()).isEqualTo(whole.inputTokens());
        assertThat(split.chunkGapsSeconds()).hasSameSizeAs(whole.chunkGapsSeconds());
    }
}
