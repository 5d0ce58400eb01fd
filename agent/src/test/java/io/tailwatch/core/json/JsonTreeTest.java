package io.tailwatch.core.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JsonTree makes the tree ObjectMapper.readTree makes, node type for node type, and fails where it fails. */
class JsonTreeTest {
    static final ObjectMapper MAPPER = new ObjectMapper();

    static final List<String> DOCUMENTS = List.of(
            "{}", "[]", "0", "-0", "\"text\"", "true", "false", "null", "1.5", "-2.5e-3", "1E400",
            "{\"a\":1,\"b\":2147483647,\"c\":2147483648,\"d\":-2147483649,\"e\":9223372036854775807,"
                    + "\"f\":9223372036854775808,\"g\":123456789012345678901234567890,\"h\":0.1,\"i\":1e3,\"j\":-0.0}",
            "{\"a\":{\"b\":{\"c\":[1,[2,[3,{\"d\":null}]],{}]}},\"e\":[],\"f\":[[]],\"g\":{\"h\":{}}}",
            "{\"dup\":1,\"dup\":\"two\",\"x\":[true,false,null]}",
            "{\"unicode\":\"\\u00e9t\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\n\",\"\":\"empty name\"}",
            "[1, 2.0, \"3\", [4], {\"5\": 5}]",
            "{\"a\":1} trailing garbage is not read",
            "  \n ",
            "");

    @Test
    void the_same_tree_as_read_tree() throws Exception {
        for (String doc : DOCUMENTS) {
            byte[] b = doc.getBytes(StandardCharsets.UTF_8);
            JsonNode expected = MAPPER.readTree(b);
            JsonNode actual = JsonTree.read(b);
            assertThat(actual).as(doc).isEqualTo(expected);
            sameTypes(doc, actual, expected);
        }
    }

    @Test
    void a_deep_and_wide_document() throws Exception {
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            deep.append("{\"k\":[");
        }
        deep.append("1");
        for (int i = 0; i < 200; i++) {
            deep.append("]}");
        }
        StringBuilder wide = new StringBuilder("[");
        for (int i = 0; i < 50_000; i++) {
            wide.append(i == 0 ? "" : ",").append("{\"i\":").append(i).append(",\"v\":").append(i / 7.0).append('}');
        }
        wide.append(']');
        for (String doc : List.of(deep.toString(), wide.toString())) {
            byte[] b = doc.getBytes(StandardCharsets.UTF_8);
            JsonNode actual = JsonTree.read(b);
            assertThat(actual).isEqualTo(MAPPER.readTree(b));
            sameTypes("large", actual, MAPPER.readTree(b));
        }
    }

    @Test
    void a_broken_document_fails_with_the_parsers_message() {
        for (String doc : List.of("{", "[1,", "{\"a\" 1}", "{\"a\":}", "[1 2]", "nul", "{\"a\":1,}", "\"open", "<html>",
                "{\"a\":NaN}", "01", "[1]]x")) {
            byte[] b = doc.getBytes(StandardCharsets.UTF_8);
            Throwable expected = catchAny(() -> MAPPER.readTree(b));
            if (expected == null) {
                // The mapper reads only the first value ("[1]]x"): so does JsonTree.
                assertThat(catchAny(() -> JsonTree.read(b))).as(doc).isNull();
                continue;
            }
            assertThatThrownBy(() -> JsonTree.read(b)).as(doc).isInstanceOf(expected.getClass())
                    .hasMessage(expected.getMessage());
        }
    }

    interface Call {
        Object run() throws Exception;
    }

    private static Throwable catchAny(Call c) {
        try {
            c.run();
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    private static void sameTypes(String doc, JsonNode actual, JsonNode expected) {
        assertThat(actual.getClass()).as(doc).isEqualTo(expected.getClass());
        if (expected.isObject()) {
            assertThat(actual.size()).isEqualTo(expected.size());
            Iterator<Map.Entry<String, JsonNode>> a = actual.fields();
            Iterator<Map.Entry<String, JsonNode>> e = expected.fields();
            while (e.hasNext()) {
                Map.Entry<String, JsonNode> ea = a.next();
                Map.Entry<String, JsonNode> ee = e.next();
                assertThat(ea.getKey()).as(doc).isEqualTo(ee.getKey());
                sameTypes(doc, ea.getValue(), ee.getValue());
            }
        } else if (expected.isArray()) {
            assertThat(actual.size()).isEqualTo(expected.size());
            for (int i = 0; i < expected.size(); i++) {
                sameTypes(doc, actual.get(i), expected.get(i));
            }
        }
    }
}
