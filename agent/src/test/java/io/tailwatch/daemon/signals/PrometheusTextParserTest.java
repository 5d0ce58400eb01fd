package io.tailwatch.daemon.signals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.daemon.signals.PrometheusTextParser.Exposition;
import io.tailwatch.daemon.signals.PrometheusTextParser.FormatException;
import io.tailwatch.daemon.signals.PrometheusTextParser.Sample;
import io.tailwatch.testing.Promtool;
import io.tailwatch.testing.RandomCases;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PrometheusTextParserTest {

    @Test
    void readsEveryAwkwardButLegalLineOfTheVllmFixture() throws Exception {
        Exposition e = PrometheusTextParser.parse(FakeEngine.resource("vllm-metrics.txt"));
        assertThat(e.sum("vllm:num_requests_running")).isEqualTo(4.0);
        assertThat(e.sum("vllm:num_requests_waiting")).isEqualTo(9.0);
        assertThat(e.max("vllm:kv_cache_usage_perc")).isEqualTo(0.61);
        Sample waiting = e.samples("vllm:num_requests_waiting").get(0);
        assertThat(waiting.timestamp()).isEqualTo(1732934400000.0);
        assertThat(e.samples("vllm:num_requests_waiting").get(1).labels())
                .containsExactly(Map.entry("engine", "1"), Map.entry("model_name", "Qwen/Qwen2.5-7B-Instruct"));
        Sample lora = e.samples("vllm:lora_requests_info").get(0);
        assertThat(lora.labels()).containsEntry("running_lora_adapters", "")
                .containsEntry("waiting_lora_adapters", "say \"hi\"\nline2 C:\\path");
        assertThat(lora.value()).isEqualTo(1.7329344e9);
        assertThat(e.families().get("vllm:lora_requests_info").help())
                .isEqualTo("Running stats on lora requests \\ with a backslash\nand a newline.");
        assertThat(e.families().get("vllm:request_queue_time_seconds").type()).isEqualTo("histogram");
        Sample inf = e.samples("vllm:request_queue_time_seconds_bucket").get(1);
        assertThat(inf.labels()).containsEntry("le", "+Inf");
        assertThat(inf.value()).isEqualTo(12.0);
        assertThat(e.samples("vllm:spec_decode_draft_acceptance_rate").get(0).value()).isNaN();
        assertThat(e.samples("vllm:e2e_request_latency_seconds")).extracting(Sample::value)
                .containsExactly(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY);
        assertThat(e.sum("vllm:spec_decode_draft_acceptance_rate")).as("NaN is skipped, not summed").isNull();
        assertThat(e.has("python_info")).isTrue();
        assertThat(e.samples()).hasSize(16);
        assertThat(e.openMetricsEof()).isFalse();
    }

    @Test
    void readsOpenMetricsExemplarsAsIgnoredTrailers() throws Exception {
        Exposition e = PrometheusTextParser.parse(FakeEngine.resource("vllm-openmetrics.txt"));
        assertThat(e.samples("vllm:request_queue_time_seconds_bucket")).extracting(Sample::value).containsExactly(10.0, 12.0);
        assertThat(e.samples("vllm:request_queue_time_seconds_bucket")).extracting(Sample::timestamp)
                .containsOnlyNulls();
        assertThat(e.samples("vllm:num_requests_waiting").get(0).timestamp()).isEqualTo(1732934400.5);
        assertThat(e.families().get("vllm:request_queue_time_seconds").unit()).isEqualTo("seconds");
        assertThat(e.openMetricsEof()).isTrue();
    }

    /** Prometheus' own parser (promtool) agrees: the fixtures are legal, and these broken lines are not. */
    @Test
    void promtoolAgreesOnWhatIsLegal() throws Exception {
        for (String f : List.of("llamacpp-metrics.txt", "vllm-metrics.txt", "vllm-mlx-metrics.txt")) {
            Promtool.Result r = Promtool.run(FakeEngine.resource(f), "check", "metrics");
            assertThat(r.output()).as(f).doesNotContain("parsing error");
            assertThat(PrometheusTextParser.parse(FakeEngine.resource(f)).samples()).isNotEmpty();
        }
        for (String bad : List.of("x{a=\"\\t\"} 1\n", "x{a=\"1\" 1\n", "x 1 2 3\n", "x one\n", "x{a=1} 1\n")) {
            Promtool.Result r = Promtool.run(bad, "check", "metrics");
            assertThat(r.output()).as(bad).contains("parsing error");
            assertThatThrownBy(() -> PrometheusTextParser.parse(bad)).as(bad).isInstanceOf(FormatException.class);
        }
    }

    @Test
    void readsOpenMetricsWithUnitsCrlfAndTheEofMarker() throws Exception {
        String text = "# TYPE queue_wait_seconds gauge\r\n# UNIT queue_wait_seconds seconds\r\n"
                + "# HELP queue_wait_seconds Wait.\r\nqueue_wait_seconds{a=\"1\"} 1.5e-3 1732934400.250\r\n# EOF\r\n";
        Exposition e = PrometheusTextParser.parse(text);
        assertThat(e.samples()).singleElement().satisfies(s -> {
            assertThat(s.value()).isEqualTo(0.0015);
            assertThat(s.timestamp()).isEqualTo(1732934400.25);
            assertThat(s.labels()).containsExactly(Map.entry("a", "1"));
        });
        assertThat(e.families().get("queue_wait_seconds")).satisfies(f -> {
            assertThat(f.unit()).isEqualTo("seconds");
            assertThat(f.type()).isEqualTo("gauge");
            assertThat(f.help()).isEqualTo("Wait.");
        });
        assertThat(e.openMetricsEof()).isTrue();
        assertThatThrownBy(() -> PrometheusTextParser.parse("# EOF\nx 1\n"))
                .isInstanceOf(FormatException.class).hasMessageContaining("line 2").hasMessageContaining("after # EOF");
    }

    @Test
    void readsQuotedUtf8NamesAndSpacingVariants() throws Exception {
        Exposition e = PrometheusTextParser.parse("{\"engine.queue depth\", \"le.x\"=\"0.5\"} 3\n"
                + "spaced { a = \"1\" , b=\"2\" }\t 4 \t\n" + "empty{} -0.0\n" + "Ratio:x_1 +1E2\n" + "inf_lower 1 -17\n");
        assertThat(e.samples("engine.queue depth")).singleElement()
                .satisfies(s -> assertThat(s.labels()).containsExactly(Map.entry("le.x", "0.5")));
        assertThat(e.samples("spaced").get(0).labels()).containsExactly(Map.entry("a", "1"), Map.entry("b", "2"));
        assertThat(e.sum("spaced")).isEqualTo(4.0);
        assertThat(e.samples("empty").get(0).labels()).isEmpty();
        assertThat(e.sum("Ratio:x_1")).isEqualTo(100.0);
        assertThat(e.samples("inf_lower").get(0).timestamp()).isEqualTo(-17.0);
    }

    @Test
    void namesTheLineAndColumnOfEveryKindOfBrokenLine() {
        Map<String, String> broken = new LinkedHashMap<>();
        broken.put("ok 1\nbad{a=\"x} 1\n", "line 2");
        broken.put("m{a=\"\\t\"} 1", "invalid escape sequence '\\t'");
        broken.put("m{a=1} 1", "expected a quoted value for label 'a'");
        broken.put("m{a=\"1\" b=\"2\"} 1", "expected ',' or '}'");
        broken.put("m{a=\"1\",a=\"2\"} 1", "label 'a' appears twice");
        broken.put("m 1 2 3", "unexpected text after the value");
        broken.put("m one", "'one' is not a number (value)");
        broken.put("m 0x10", "is not a number");
        broken.put("m 1d", "is not a number");
        broken.put("m", "expected a space and a value");
        broken.put("m{a=\"1\"", "unterminated label set");
        broken.put("9m 1", "expected a metric name");
        broken.put("m 1 NaN", "a timestamp must be finite");
        broken.put("# TYPE m bogus", "unknown metric type 'bogus'");
        broken.put("# TYPE m gauge extra", "unexpected text after the metric type");
        broken.put("# HELP", "expected a space and a metric name");
        broken.put("m{=\"1\"} 1", "expected a label name");
        for (Map.Entry<String, String> b : broken.entrySet()) {
            assertThatThrownBy(() -> PrometheusTextParser.parse(b.getKey())).as(b.getKey())
                    .isInstanceOf(FormatException.class).hasMessageContaining(b.getValue())
                    .hasMessageMatching("line \\d+, column \\d+: .*");
        }
    }

    @Test
    void boundsTheNumberOfSamples() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 11; i++) {
            b.append("m{i=\"").append(i).append("\"} 1\n");
        }
        assertThatThrownBy(() -> PrometheusTextParser.parse(b.toString(), 10)).hasMessageContaining("more than 10 samples");
    }

    // ---- properties (seeded random cases, replayable by the seed in the test name): whatever a legal
    // exposition looks like, the parser reads back exactly what was written ----

    record Written(String name, Map<String, String> labels, double value, Long timestamp) {
    }

    record Style(boolean crlf, boolean tabs, boolean trailingComma, boolean comments, boolean exemplars,
                 boolean eof, int numberFormat) {
    }

    static Stream<Long> seeds() {
        return RandomCases.seeds(200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void readsBackWhatAnyLegalExpositionSays(long seed) throws Exception {
        Random r = new Random(seed);
        List<Written> written = exposition(r);
        Style style = new Style(r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(), r.nextBoolean(),
                r.nextBoolean(), r.nextInt(3));
        String text = render(written, style);
        Exposition e = PrometheusTextParser.parse(text);
        assertThat(e.samples()).as(text).hasSameSizeAs(written);
        for (int i = 0; i < written.size(); i++) {
            Written w = written.get(i);
            Sample s = e.samples().get(i);
            assertThat(s.name()).isEqualTo(w.name());
            assertThat(s.labels()).isEqualTo(w.labels());
            assertThat(Double.compare(s.value(), w.value())).as("value %s vs %s", s.value(), w.value()).isZero();
            assertThat(s.timestamp()).isEqualTo(w.timestamp() == null ? null : w.timestamp().doubleValue());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void anyTextEitherParsesOrFailsWithALineNumberNeverAnythingElse(long seed) {
        Random r = new Random(seed);
        String[] fixed = {"# HELP", "# TYPE x", "# TYPE x gauge", "# EOF", "x{a=\"\\", "x 1 2", "{\"q\"} 1",
                "x{a=\"b\",} NaN", "x +Inf # {a=\"1\"} 2"};
        String alphabet = "ab_:{}=\",# \t\\n0123456789.+-eINFa";
        List<String> lines = new ArrayList<>();
        for (int i = r.nextInt(7); i > 0; i--) {
            if (r.nextBoolean()) {
                lines.add(fixed[r.nextInt(fixed.length)]);
            } else {
                lines.add(pick(r, alphabet, 30));
            }
        }
        String text = String.join("\n", lines);
        try {
            PrometheusTextParser.parse(text);
        } catch (FormatException e) {
            assertThat(e.line()).isBetween(1, text.split("\n", -1).length);
            assertThat(e.column()).isPositive();
        }
    }

    static String pick(Random r, String alphabet, int maxLength) {
        StringBuilder b = new StringBuilder();
        for (int i = r.nextInt(maxLength + 1); i > 0; i--) {
            b.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    static String name(Random r, String first, String rest, int maxLength) {
        StringBuilder b = new StringBuilder().append(first.charAt(r.nextInt(first.length())));
        for (int i = r.nextInt(maxLength); i > 0; i--) {
            b.append(rest.charAt(r.nextInt(rest.length())));
        }
        return b.toString();
    }

    static final double[] SPECIAL = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0, 1e-300,
            Double.MAX_VALUE, Double.MIN_VALUE};

    static List<Written> exposition(Random r) {
        List<Written> out = new ArrayList<>();
        for (int i = r.nextInt(13); i > 0; i--) {
            String metric = name(r, "abcxyzABC_:", "abcdefghijklmnopqrstuvwxyzABCXYZ_:0123456789", 20);
            Map<String, String> labels = new LinkedHashMap<>();
            for (int j = r.nextInt(5); j > 0; j--) {
                labels.put(name(r, "abcdefxyz_", "abcdefxyz_0123456789", 10),
                        pick(r, "abc xyz\"\\\n{},=#\t:\u00e9\u65e5", 15));
            }
            double value = switch (r.nextInt(3)) {
                case 0 -> (r.nextDouble() * 2 - 1) * 1e12;
                case 1 -> SPECIAL[r.nextInt(SPECIAL.length)];
                default -> (double) (r.nextLong() % 1_000_000_000L);
            };
            Long ts = r.nextBoolean() ? null : -10_000_000_000L + (long) (r.nextDouble() * 4_010_000_000_000L);
            out.add(new Written(metric, labels, value, ts));
        }
        return out;
    }

    static String render(List<Written> written, Style st) {
        String nl = st.crlf() ? "\r\n" : "\n";
        String sp = st.tabs() ? "\t " : " ";
        StringBuilder b = new StringBuilder();
        List<String> described = new ArrayList<>();
        for (Written w : written) {
            if (st.comments() && !described.contains(w.name())) {
                described.add(w.name());
                b.append("# HELP ").append(w.name()).append(" help with \\\\ and \\n").append(nl);
                b.append("# TYPE ").append(w.name()).append(" untyped").append(nl);
                b.append("# just a comment {not=\"parsed\"} 1").append(nl).append(nl);
            }
            b.append(w.name());
            if (!w.labels().isEmpty() || st.trailingComma()) {
                b.append('{');
                int i = 0;
                for (Map.Entry<String, String> l : w.labels().entrySet()) {
                    if (i++ > 0) {
                        b.append(',');
                    }
                    b.append(l.getKey()).append("=\"").append(escape(l.getValue())).append('"');
                }
                if (st.trailingComma() && !w.labels().isEmpty()) {
                    b.append(',');
                }
                b.append('}');
            }
            b.append(sp).append(number(w.value(), st.numberFormat()));
            if (w.timestamp() != null) {
                b.append(sp).append(w.timestamp());
            }
            if (st.exemplars()) {
                b.append(" # {trace_id=\"7f\\\"x\"} 0.5 123.4");
            }
            b.append(nl);
        }
        if (st.eof()) {
            b.append("# EOF").append(nl);
        }
        return b.toString();
    }

    static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    static String number(double v, int format) {
        if (Double.isNaN(v)) {
            return format == 1 ? "nan" : "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? (format == 1 ? "+inf" : "+Inf") : "-Inf";
        }
        return switch (format) {
            case 0 -> Double.toString(v);
            case 1 -> String.format(Locale.ROOT, "%.17g", v);
            default -> String.format(Locale.ROOT, "%.17e", v);
        };
    }

    @Test
    void openMetricsHelpUnescapesQuotesAndTheTextFormatKeepsThem() throws Exception {
        String help = "# HELP q Say \\\"hi\\\" \\\\ then\\nmore.\n";
        Exposition om = PrometheusTextParser.parse(help + "# TYPE q gauge\nq 1\n# EOF\n");
        assertThat(om.families().get("q").help()).isEqualTo("Say \"hi\" \\ then\nmore.");
        Exposition text = PrometheusTextParser.parse(help + "# TYPE q gauge\nq 1\n");
        assertThat(text.families().get("q").help()).isEqualTo("Say \\\"hi\\\" \\ then\nmore.");
        Exposition streamed = PrometheusTextParser.parse(new java.io.ByteArrayInputStream(
                (help + "# TYPE q gauge\nq 1\n# EOF\n").getBytes(java.nio.charset.StandardCharsets.UTF_8)), n -> true, 100, 100);
        assertThat(streamed.families().get("q").help()).isEqualTo("Say \"hi\" \\ then\nmore.");
    }

    private static Exposition streamed(String text, java.util.function.Predicate<String> keep, int maxKept)
            throws Exception {
        return PrometheusTextParser.parse(new java.io.ByteArrayInputStream(
                text.getBytes(java.nio.charset.StandardCharsets.UTF_8)), keep, 100, maxKept);
    }

    @Test
    void aStreamedParseKeepsOnlyTheWantedFamiliesAndAgreesWithTheWholeText() throws Exception {
        String text = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 3\r\n"
                + "# HELP b B.\n# TYPE b gauge\n# UNIT b seconds\nb 7\n\na_total{x=\"2\"} 4\n";
        Exposition whole = PrometheusTextParser.parse(text);
        Exposition kept = streamed(text, "a_total"::equals, 10);
        assertThat(kept.samples()).isEqualTo(whole.samples("a_total")).hasSize(2);
        assertThat(kept.families()).containsOnlyKeys("a_total")
                .containsEntry("a_total", whole.families().get("a_total"));
        assertThat(whole.families().get("b")).isEqualTo(new PrometheusTextParser.Family("b", "gauge", "B.", "seconds"));
        assertThat(streamed(text, n -> true, 10).families()).isEqualTo(whole.families());
    }

    @Test
    void aStreamedParseStillChecksTheLinesItDropsAndBoundsWhatItKeeps() {
        // A broken line of a family not kept is still an error, with its line number.
        assertThatThrownBy(() -> streamed("a 1\nb{x=1} 2\n", "a"::equals, 10))
                .isInstanceOf(FormatException.class).satisfies(e -> assertThat(((FormatException) e).line()).isEqualTo(2));
        assertThatThrownBy(() -> streamed("# TYPE b nonsense\na 1\n", "a"::equals, 10))
                .isInstanceOf(FormatException.class).hasMessageContaining("line 1");
        // Over the kept bound is a limit, not a broken exposition; samples not kept do not count.
        assertThatThrownBy(() -> streamed("b 0\nb 0\na 1\na 2\na 3\n", "a"::equals, 2))
                .isInstanceOf(PrometheusTextParser.OverLimit.class).hasMessageContaining("more than 2 samples");
    }
}
