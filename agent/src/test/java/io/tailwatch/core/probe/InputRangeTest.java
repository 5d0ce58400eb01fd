package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every numeric field of the engines' answers, walked with a negative, a huge, an overflowing, a fractional and
 * a beyond-long value: each is dropped where it enters (the measurement has no figure), counted under its source
 * and field, and a good value of the same field is kept.
 */
class InputRangeTest {
    /** Values no field may take; JSON has no NaN or infinity, so those are walked where doubles enter (below). */
    static final List<String> BAD = List.of("-10", "-1", Long.toString(1L << 62), Long.toString(Long.MAX_VALUE),
            "99999999999999999999999", "1e300", "-1e300", "2.5");

    record Field(String name, String good, Function<String, String> body, boolean sse, Function<Measurement, Object> read) {
    }

    static String sseUsage(String field, String v) {
        return "data: {\"choices\":[],\"usage\":{\"" + field + "\":" + v + "}}\n\ndata: [DONE]\n\n";
    }

    static String sseTimings(String field, String v) {
        return "data: {\"choices\":[],\"timings\":{\"" + field + "\":" + v + "}}\n\ndata: [DONE]\n\n";
    }

    static String ollama(String field, String v) {
        return "{\"done\":true,\"eval_count\":4,\"" + field + "\":" + v + "}\n";
    }

    static final List<Field> FIELDS = List.of(
            new Field("completion_tokens", "7", v -> sseUsage("completion_tokens", v), true, m -> m.usageOutput),
            new Field("prompt_tokens", "7", v -> sseUsage("prompt_tokens", v), true, m -> m.usageInput),
            new Field("predicted_n", "7", v -> sseTimings("predicted_n", v), true, m -> m.engineOutput),
            new Field("prompt_n", "7", v -> sseTimings("prompt_n", v), true, m -> m.engineInput),
            new Field("prompt_ms", "7", v -> sseTimings("prompt_ms", v), true, m -> m.serverPromptSeconds),
            new Field("predicted_per_second", "7", v -> sseTimings("predicted_per_second", v), true, m -> m.serverDecodeRate),
            new Field("tokens_per_second", "7", v -> "data: {\"choices\":[],\"stats\":{\"tokens_per_second\":" + v
                    + "}}\n\ndata: [DONE]\n\n", true, m -> m.serverDecodeRate),
            new Field("eval_count", "7", v -> "{\"done\":true,\"eval_count\":" + v + "}\n", false, m -> m.engineOutput),
            new Field("prompt_eval_count", "7", v -> ollama("prompt_eval_count", v), false, m -> m.engineInput),
            new Field("prompt_eval_duration", "7", v -> ollama("prompt_eval_duration", v), false, m -> m.serverPromptSeconds),
            new Field("load_duration", "7", v -> ollama("load_duration", v), false, m -> m.loadSeconds),
            new Field("eval_duration", "7000000000", v -> ollama("eval_duration", v), false, m -> m.serverDecodeRate));

    private static Measurement parse(Field f, String value) {
        StreamParser p = f.sse() ? new OpenAiStreamParser() : new OllamaStreamParser();
        Measurement m = new Measurement(0);
        p.bytes(ByteBuffer.wrap(f.body().apply(value).getBytes(StandardCharsets.UTF_8)), 1, m);
        return m;
    }

    @Test
    void everyStreamFieldDropsAndCountsEveryValueOutOfItsRange() {
        for (Field f : FIELDS) {
            assertThat(parse(f, f.good()).errorType).as(f.name()).isNull();
            assertThat(f.read().apply(parse(f, f.good()))).as(f.name() + " good").isNotNull();
            for (String v : BAD) {
                if (v.equals("2.5") && List.of("prompt_ms", "predicted_per_second", "tokens_per_second").contains(f.name())) {
                    continue; // a fraction is a good rate or milliseconds
                }
                long before = InputRange.rejected(OpenAiStreamParser.SOURCE, f.name());
                Measurement m = parse(f, v);
                assertThat(f.read().apply(m)).as(f.name() + " = " + v).isNull();
                assertThat(InputRange.rejected(OpenAiStreamParser.SOURCE, f.name())).as(f.name() + " = " + v + " counted")
                        .isEqualTo(before + 1);
            }
        }
    }

    @Test
    void theProxyTapDropsAndCountsEveryCountOutOfRange() {
        for (String field : List.of("completion_tokens", "prompt_tokens", "eval_count", "predicted_n", "prompt_eval_count",
                "prompt_n")) {
            for (String v : BAD) {
                long before = InputRange.rejected(OpenAiStreamParser.SOURCE, field);
                StreamTap tap = StreamTap.of("application/json", 0);
                byte[] b = ("{\"model\":\"m\",\"usage\":{\"" + field + "\":" + v + "}}").getBytes(StandardCharsets.UTF_8);
                tap.bytes(b, 0, b.length, 1);
                tap.end(2);
                StreamTap.Tokens t = tap.tokens();
                assertThat(t.output()).as(field + " = " + v).isNull();
                assertThat(t.input()).as(field + " = " + v).isNull();
                assertThat(InputRange.rejected(OpenAiStreamParser.SOURCE, field)).as(field + " = " + v).isEqualTo(before + 1);
            }
        }
    }

    @Test
    void modelFiguresAndDoublesOutOfRangeAreUnknownAndCounted() {
        for (Long bad : List.of(-4096L, -5_000_000_000L, 1L << 62, Long.MAX_VALUE, Long.MIN_VALUE)) {
            LoadedModel m = new LoadedModel("m", null, bad, bad, bad, null, null);
            assertThat(m.sizeBytes()).isNull();
            assertThat(m.vramBytes()).isNull();
            assertThat(m.contextLength()).isNull();
        }
        assertThat(InputRange.rejected("engine_models", "context_length")).isGreaterThanOrEqualTo(5);
        LoadedModel good = new LoadedModel("m", null, 5_000_000_000L, 4_000_000_000L, 4096L, null, null);
        assertThat(good.contextLength()).isEqualTo(4096L);
        for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1, 1e300}) {
            assertThat(InputRange.number("t", "ratio", d, 0, 1)).as("" + d).isNull();
        }
        assertThat(InputRange.rejected("t", "ratio")).isEqualTo(5);
        assertThat(InputRange.number("t", "ratio", 0.5, 0, 1)).isEqualTo(0.5);
    }

    @Test
    void anEnginesExtrasKeepEveryFiniteFigureAndDropTheRestAtAnyDepth() {
        long before = InputRange.rejected("test_extras", "details");
        java.util.Map<String, Object> in = new java.util.LinkedHashMap<>();
        in.put("slots_total", 4);
        in.put("id_task", -1);
        in.put("metal_bytes", 1e300);
        in.put("rate", Double.NaN);
        in.put("name", "m\u001b[31m");
        in.put("absent", null);
        in.put("slots", List.of(java.util.Map.of("n_ctx", 4096), java.util.Map.of("n_ctx", Double.NEGATIVE_INFINITY),
                java.util.Map.of("n_decoded", -1e300)));
        in.put("deep", java.util.Map.of("a", java.util.Map.of("b", java.util.Map.of("c", java.util.Map.of("d", 1)))));

        java.util.Map<String, Object> out = InputRange.details("test_extras", "details", in);

        assertThat(out).containsEntry("slots_total", 4).containsEntry("id_task", -1).containsEntry("name", "m\u001b[31m")
                .containsEntry("absent", null).doesNotContainKeys("metal_bytes", "rate");
        assertThat(out.get("slots")).isEqualTo(List.of(java.util.Map.of("n_ctx", 4096), java.util.Map.of(), java.util.Map.of()));
        assertThat(out.get("deep")).as("walked four levels, no deeper").isEqualTo(java.util.Map.of("a", java.util.Map.of("b",
                java.util.Map.of())));
        assertThat(InputRange.rejected("test_extras", "details") - before).as("1e300, NaN, -Inf and -1e300").isEqualTo(4);
        assertThat(InputRange.details("test_extras", "details", java.util.Map.of("edge", InputRange.MAX_DETAIL)))
                .containsEntry("edge", InputRange.MAX_DETAIL);
    }

    @Test
    void countersSaturateRatherThanWrap() {
        assertThat(InputRange.saturatingAdd(1L << 62, 1L << 62)).isEqualTo(Long.MAX_VALUE);
        assertThat(InputRange.saturatingAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(InputRange.saturatingAdd(3, 4)).isEqualTo(7);
    }
}
