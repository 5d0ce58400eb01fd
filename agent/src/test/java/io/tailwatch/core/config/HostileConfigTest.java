package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Config input a careless or hostile author might write: each is refused with its line and key. */
class HostileConfigTest {
    private static List<String> problems(String yaml, Map<String, String> env) {
        return ConfigProblems.of(yaml, env);
    }

    private static List<String> problems(String yaml) {
        return problems(yaml, Map.of());
    }

    @Test
    void anAliasIsRefusedWithItsLineAndKeyAndNeverBecomesTheAnchorName() {
        List<String> p = problems("""
                otlp:
                  headers:
                    x-token: &t s3cret
                server:
                  auth_token: *t
                """);
        assertThat(p).anySatisfy(s -> assertThat(s).contains("line 5").contains("server.auth_token")
                .contains("alias"));
        assertThat(p).noneSatisfy(s -> assertThat(s).contains("otlp.headers"));
    }

    @Test
    void aMergeKeyIsRefused() {
        List<String> p = problems("""
                base: &b {interval: 5s}
                host:
                  <<: *b
                """);
        assertThat(p).anySatisfy(s -> assertThat(s).contains("line 3").contains("host.<<").contains("alias"));
    }

    @Test
    void anEmptyTokenFromTheEnvironmentIsRefused() {
        List<String> p = problems("server:\n  auth_token: ${TW_TOKEN}\n", Map.of("TW_TOKEN", ""));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("line 2").contains("server.auth_token").contains("empty"));
        assertThat(problems("server:\n  auth_token: \"  \"\n")).anySatisfy(s -> assertThat(s).contains("empty"));
    }

    @Test
    void anEmptyTokenFileIsRefused(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("token");
        Files.writeString(f, "\n");
        List<String> p = problems("server:\n  auth_token_file: " + f + "\n");
        assertThat(p).anySatisfy(s -> assertThat(s).contains("server.auth_token_file").contains("empty"));
    }

    @Test
    void aNulInAPathNamesTheKey() {
        assertThat(problems("host:\n  procfs: \"/pr\\0oc\"\n"))
                .anySatisfy(s -> assertThat(s).contains("line 2").contains("host.procfs").contains("NUL"));
        assertThat(problems("server:\n  auth_token_file: \"/tmp/t\\0k\"\n"))
                .anySatisfy(s -> assertThat(s).contains("server.auth_token_file").contains("NUL"));
        assertThat(problems("alerts:\n  baseline:\n    file: \"/tmp/b\\0.json\"\n"))
                .anySatisfy(s -> assertThat(s).contains("alerts.baseline.file").contains("NUL"));
    }

    @Test
    void aTabIsReportedAtItsLineWithItsCause() {
        List<String> p = problems("server:\n  listen: 127.0.0.1:9531\nhost:\n\tinterval: 5s\n");
        assertThat(p).hasSize(1);
        assertThat(p.get(0)).contains("line 4").containsIgnoringCase("tab");
    }

    @Test
    void aSecondDocumentIsAnError() {
        List<String> p = problems("server:\n  listen: 127.0.0.1:9531\n---\nserver:\n  listen: 0.0.0.0:9531\n");
        assertThat(p).anySatisfy(s -> assertThat(s).contains("line 3").contains("second YAML document"));
    }

    @Test
    void otlpHeaderValuesPassThroughExactly() throws Exception {
        Config c = Config.parse("""
                otlp:
                  headers:
                    authorization: "Basic dXNlcjpwYXNz%2B+/=="
                    x-list: "a,b=c"
                """, "t", Map.of());
        assertThat(c.otlp().headers()).containsEntry("authorization", "Basic dXNlcjpwYXNz%2B+/==")
                .containsEntry("x-list", "a,b=c");
    }

    @Test
    void otlpHeaderNamesAndValuesThatCannotBeSentAreRefused() {
        List<String> p = problems("""
                otlp:
                  headers:
                    "bad name": x
                    x-ok: "line\\nbreak"
                """);
        assertThat(p).anySatisfy(s -> assertThat(s).contains("line 3").contains("otlp.headers.bad name"));
        assertThat(p).anySatisfy(s -> assertThat(s).contains("line 4").contains("otlp.headers.x-ok"));
    }
}
