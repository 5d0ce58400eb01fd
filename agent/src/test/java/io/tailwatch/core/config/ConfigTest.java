package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class ConfigTest {
    private static final Map<String, String> ENV = Map.of("TW_TOKEN", "s3cret", "OLLAMA_KEY", "k-123");

    private static List<String> problems(String yaml) {
        return ConfigProblems.of(yaml, ENV);
    }

    @Test
    void emptyConfigEqualsTheDocumentedDefaultFile() throws Exception {
        Config empty = Config.parse("", "empty", ENV);
        Config file = Config.load(Path.of(System.getProperty("tailwatch.root", ".."), "config", "tailwatch.yaml"), ENV);
        Config builtIn = Config.defaults(ENV);
        assertThat(file.server()).isEqualTo(empty.server());
        assertThat(file.host()).isEqualTo(empty.host());
        assertThat(file.otlp()).isEqualTo(empty.otlp());
        assertThat(builtIn.engines()).isEqualTo(file.engines());
        assertThat(builtIn.server()).isEqualTo(empty.server());
        assertThat(empty.server().listen()).isEqualTo("127.0.0.1:9531");
        assertThat(empty.host().interval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(empty.host().procfs()).isEqualTo(Path.of("/proc"));
        // The shipped default finds the engines (engines: auto) and configures none by hand.
        assertThat(builtIn.autoEngines()).isTrue();
        assertThat(builtIn.engines()).isEmpty();
        assertThat(builtIn.discovery().interval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(builtIn.discovery().allPorts(io.tailwatch.daemon.engine.EngineDiscovery.WELL_KNOWN_PORTS))
                .containsExactly(11434, 8080, 1234, 8000);
        assertThat(empty.autoEngines()).isFalse();
    }

    @Test
    void theBuiltInServerSettingsNeedNoYaml() throws Exception {
        for (Map<String, String> env : List.of(ENV, Map.<String, String>of(), Map.of("TAILWATCH_TOKEN", "t0k", "HOME", "/nowhere"))) {
            assertThat(ServerConfig.defaults()).as(env.toString()).isEqualTo(Config.defaults(env).server())
                    .isEqualTo(Config.parse("", "empty", env).server());
        }
        assertThat(ServerConfig.defaults().listen()).isEqualTo(ServerConfig.DEFAULT_LISTEN);
        assertThat(ServerConfig.defaults().authToken()).isNull();
        assertThat(ServerConfig.defaults().webConfigFile()).isNull();
    }

    /**
     * The engines example documented (commented out) in the shipped file, as a config: every key of a
     * listed engine. Tests that need configured engines use it, so the example stays valid.
     */
    public static Config documentedEngines() throws Exception {
        String text = Config.defaultText();
        int from = text.indexOf("# engines:\n");
        int to = text.indexOf("\ndiscovery:\n");
        StringBuilder sb = new StringBuilder();
        for (String line : text.substring(from, to).split("\n")) {
            sb.append(line.startsWith("# ") ? line.substring(2) : line.equals("#") ? "" : line).append('\n');
        }
        return Config.parse(sb.toString(), "documented engines example", ENV);
    }

    @Test
    void theDocumentedEnginesExampleIsAValidConfig() throws Exception {
        Config c = documentedEngines();
        assertThat(c.autoEngines()).isFalse();
        assertThat(c.engines()).extracting(EngineConfig::name).containsExactly("ollama", "mlx");
        assertThat(c.engines().get(0).url().toString()).isEqualTo("http://127.0.0.1:11434");
        assertThat(c.engines().get(1).url().toString()).isEqualTo("http://127.0.0.1:8080");
    }

    @Test
    void enginesIsAListOrAuto() {
        assertThat(problems("engines: sometimes\n")).singleElement().satisfies(p ->
                assertThat(p).contains("engines").contains("must be a list of engines, or auto"));
        assertThat(problems("engines: auto\ndiscovery:\n  well_known_ports: false\n")).singleElement().satisfies(p ->
                assertThat(p).contains("discovery.ports").contains("needs ports to check"));
        assertThat(problems("engines: auto\ndiscovery:\n  ports: [99999]\n  interval: 1s\n")).hasSize(2);
    }

    @Test
    void defaultFileIsTheJarResource() throws Exception {
        String file = Files.readString(Path.of(System.getProperty("tailwatch.root", ".."), "config", "tailwatch.yaml"));
        assertThat(Config.defaultText()).isEqualTo(file);
    }

    @Test
    void everyProblemIsReportedWithLineColumnAndPath() {
        List<String> p = problems("""
                server:
                  listen: 127.0.0.1:9531
                  bogus: 1
                host:
                  interval: 5 parsecs
                  timeout: 10m
                otlp:
                  enabled: maybe
                  protocol: carrier-pigeon
                extra: true
                """);
        assertThat(p).containsExactlyInAnyOrder(
                "line 3, column 3: server.bogus: unknown key",
                "line 5, column 13: host.interval: expected a duration (e.g. 250ms, 5s, 1m), got '5 parsecs' (bad duration '5 parsecs' (use e.g. 250ms, 5s, 2m30s, 1h))",
                "line 6, column 12: host.timeout: out of range: must be between 10ms and 1m",
                "line 8, column 12: otlp.enabled: expected true or false, got 'maybe'",
                "line 9, column 13: otlp.protocol: expected one of http/protobuf, grpc, got 'carrier-pigeon'",
                "line 10, column 1: extra: unknown key");
    }

    @Test
    void perCpuIsOffByDefaultAndMustBeABoolean() throws Exception {
        assertThat(Config.parse("", "empty", ENV).host().perCpu()).isFalse();
        assertThat(Config.parse("host:\n  per_cpu: true\n", "t", ENV).host().perCpu()).isTrue();
        assertThat(problems("host:\n  per_cpu: yes-please\n")).singleElement().asString()
                .contains("line 2").contains("host.per_cpu").contains("true or false");
    }

    @Test
    void wrongTypesAreNamed() {
        List<String> p = problems("""
                server: [1, 2]
                host:
                  interval: {a: 1}
                """);
        assertThat(p).containsExactlyInAnyOrder(
                "line 1, column 9: server: expected a mapping, got a list",
                "line 3, column 13: host.interval: expected a duration (e.g. 250ms, 5s, 1m), got a mapping");
    }

    @Test
    void yamlSyntaxErrorsNameTheLine() {
        List<String> p = problems("server:\n  listen: [unclosed\nhost: 1\n");
        assertThat(p).hasSize(1);
        assertThat(p.get(0)).startsWith("line ").contains("YAML syntax");
    }

    @Test
    void duplicateKeysAreErrors() {
        assertThat(problems("host:\n  interval: 5s\n  interval: 10s\n"))
                .containsExactly("line 3, column 3: host.interval: duplicate key");
    }

    @Test
    void environmentVariablesAreSubstitutedAndSecretsStayOutOfToString() throws Exception {
        Config c = Config.parse("""
                server:
                  auth_token: ${TW_TOKEN}
                engines:
                  - name: local
                    api: openai
                    url: http://127.0.0.1:8080
                    api_key: ${OLLAMA_KEY}
                """, "t", ENV);
        assertThat(c.server().authToken()).isEqualTo("s3cret");
        assertThat(c.server().toString()).doesNotContain("s3cret");
        assertThat(c.engines().get(0).apiKey()).isEqualTo("k-123");
        assertThat(c.engines().get(0).toString()).doesNotContain("k-123");
        assertThat(problems("server:\n  auth_token: ${NOPE_NOT_SET}\n"))
                .containsExactly("line 2, column 15: server.auth_token: environment variable NOPE_NOT_SET is not set");
    }

    @Test
    void tokenFromFile(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path f = dir.resolve("token");
        Files.writeString(f, "from-file\n");
        Config c = Config.parse("server:\n  auth_token_file: " + f + "\n", "t", ENV);
        assertThat(c.server().authToken()).isEqualTo("from-file");
    }

    @Test
    void theEngineShapeFromTheDocsIsAccepted() throws Exception {
        Config c = Config.parse("""
                engines:
                  - name: mlx
                    api: openai
                    url: http://127.0.0.1:8080
                    model: mlx-community/Qwen3-14B-4bit
                    health:
                      interval: 15s
                    connect_timeout: 1500ms
                    scenarios:
                      - name: interactive
                        interval: 60s
                        prompt_tokens: 64
                        max_tokens: 32
                        timeouts: {first_token: 30s, total: 50s}
                """, "t", ENV);
        EngineConfig e = c.engines().get(0);
        assertThat(e.model()).isEqualTo("mlx-community/Qwen3-14B-4bit");
        assertThat(e.port()).isEqualTo(8080);
        EngineConfig.Scenario s = e.scenarios().get(0);
        assertThat(s.totalTimeout()).isEqualTo(Duration.ofSeconds(50));
        assertThat(s.firstTokenTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(e.connectTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.temperature()).isZero();
        assertThat(s.interactive()).isTrue();
    }

    @Test
    void totalDeadlineMustBeShorterThanTheInterval() {
        assertThat(problems("""
                engines:
                  - name: mlx
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - interval: 30s
                        timeouts: {first_token: 10s, total: 30s}
                """)).containsExactly(
                "line 7, column 45: engines[0].scenarios[0].timeouts.total: the total deadline (30s) must be shorter than the scenario interval (30s)");
    }

    @Test
    void engineProblems() {
        assertThat(problems("""
                engines:
                  - name: Bad Name
                    api: grpc
                    url: ftp://x
                  - name: ok
                    api: ollama
                    url: http://127.0.0.1:11434
                  - name: ok
                    api: ollama
                    url: http://127.0.0.1:11435
                """)).containsExactlyInAnyOrder(
                "line 2, column 11: engines[0].name: must match [a-z0-9][a-z0-9_.-]{0,62} (lower case, digits, _ . -)",
                "line 3, column 10: engines[0].api: expected one of ollama, openai, got 'grpc'",
                "line 4, column 10: engines[0].url: expected an http:// or https:// URL, got 'ftp://x' (must be http://HOST[:PORT] or https://...)",
                "line 8, column 11: engines[2].name: duplicate engine name 'ok'");
    }

    @Test
    void unsetHealthTimeoutFollowsAShortInterval() throws Exception {
        Config c = Config.parse("""
                engines:
                  - name: fast
                    api: openai
                    url: http://127.0.0.1:8080
                    health: {interval: 1s}
                  - name: slow
                    api: openai
                    url: http://127.0.0.1:8081
                  - name: equal
                    api: openai
                    url: http://127.0.0.1:8082
                    health: {interval: 2s, timeout: 2s}
                """, "t", ENV);
        assertThat(c.engines().get(0).healthTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.engines().get(1).healthTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.engines().get(2).healthTimeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void onlyAnExplicitHealthTimeoutLongerThanTheIntervalIsAnError() {
        assertThat(problems("""
                engines:
                  - name: fast
                    api: openai
                    url: http://127.0.0.1:8080
                    health: {interval: 1s, timeout: 3s}
                """)).containsExactly(
                "line 5, column 37: engines[0].health.timeout: must not be longer than health.interval (1s)");
    }

    @Test
    void runbookBaseUrlIsAnAbsoluteUrlWithoutFragment() throws Exception {
        assertThat(Config.parse("", "t", ENV).alerts().runbookBaseUrl()).isNull();
        assertThat(Config.parse("alerts: {runbook_base_url: 'https://wiki.example/tailwatch/runbook'}\n", "t", ENV)
                .alerts().runbookBaseUrl()).isEqualTo("https://wiki.example/tailwatch/runbook");
        assertThat(problems("alerts:\n  runbook_base_url: docs/runbook.md\n")).containsExactly(
                "line 2, column 21: alerts.runbook_base_url: expected an absolute http:// or https:// URL of the runbook page, got 'docs/runbook.md'");
        assertThat(problems("alerts:\n  runbook_base_url: https://x.example/r#top\n")).containsExactly(
                "line 2, column 21: alerts.runbook_base_url: must not have a #fragment: each alert adds its own (#RuleName)");
    }

    @Test
    void omittedWindowHoldsTheRulesMinimumAtTheInterval() throws Exception {
        Config c = Config.parse("""
                engines:
                  - name: a
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - {name: slow, interval: 60s}
                      - {name: fast, interval: 15s, timeouts: {total: 10s, first_token: 5s}}
                """, "t", ENV);
        // 20 probes 60 s apart, each up to 10 % late: 20 x 66 s = 22m.
        assertThat(c.engines().get(0).scenarios().get(0).window()).isEqualTo(Duration.ofMinutes(22));
        assertThat(c.engines().get(0).scenarios().get(1).window()).isEqualTo(Duration.ofMinutes(10));
        assertThat(Config.defaults(ENV).engines()).allSatisfy(e -> assertThat(e.scenarios()).allSatisfy(sc ->
                assertThat(WindowRequirements.guaranteed(sc.window(), sc.interval())).isGreaterThanOrEqualTo(20)));
    }

    @Test
    void aWindowTooShortForTheRulesIsRejectedNamingTheKeys() {
        assertThat(problems("""
                engines:
                  - name: a
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - {name: chat, interval: 60s, window: 10m}
                """)).containsExactly("line 6, column 45: engines[0].scenarios[0].window: 10m holds only 9 probes at interval"
                + " 1m (a probe may come up to 10 % late), but rules.TailLatencySpread (20 probes) and"
                + " alerts.baseline.min_samples (20 probes, for LatencyOverBaseline) need 20: set window to at least 22m"
                + " or interval to at most 27s (or disable the rule)");
    }

    @Test
    void aShortWindowIsFineWhenTheRulesThatNeedMoreAreOff() throws Exception {
        Config c = Config.parse("""
                rules:
                  TailLatencySpread: {enabled: false}
                alerts:
                  baseline: {min_samples: 5}
                engines:
                  - name: a
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - {name: chat, interval: 60s, window: 10m}
                """, "t", ENV);
        assertThat(c.engines().get(0).scenarios().get(0).window()).isEqualTo(Duration.ofMinutes(10));
        assertThat(problems("""
                rules:
                  TailLatencySpread: {enabled: false}
                engines:
                  - name: a
                    api: openai
                    url: http://127.0.0.1:8080
                    scenarios:
                      - {name: chat, interval: 60s, window: 2m}
                """)).singleElement().asString().contains("window: 2m holds only 1 probes",
                "alerts.baseline.min_samples (20 probes, for LatencyOverBaseline) and rules.ProbeErrors (3 failed probes) need 20");
    }

    @Test
    void listenIsValidated() {
        assertThat(problems("server:\n  listen: localhost\n"))
                .containsExactly("line 2, column 11: server.listen: expected HOST:PORT, got 'localhost'");
        assertThatThrownBy(() -> HostPort.parse("127.0.0.1:70000")).hasMessageContaining("out of range");
        assertThat(HostPort.parse("[::1]:9531").host()).isEqualTo("::1");
    }

    @Test
    void engineAndScenarioCountsAreBounded() throws Exception {
        StringBuilder many = new StringBuilder("engines:\n");
        for (int i = 0; i < 1000; i++) {
            many.append("  - name: e").append(i).append("\n    api: openai\n    url: http://127.0.0.1:").append(20000 + i)
                    .append("\n");
        }
        assertThat(problems(many.toString()))
                .containsExactly("line 2, column 3: engines: 1000 engines, more than the 32 the agent supports",
                        "line 2, column 3: engines: 1000 scenarios over all engines, more than the 64 the agent supports");

        StringBuilder scenarios = new StringBuilder("engines:\n  - name: e\n    api: openai\n    url: http://127.0.0.1:8080\n    scenarios:\n");
        for (int i = 0; i < 9; i++) {
            scenarios.append("      - name: s").append(i).append("\n");
        }
        assertThat(problems(scenarios.toString()))
                .containsExactly("line 6, column 7: engines[0].scenarios: 9 scenarios, more than the 8 one engine may have");

        StringBuilder largest = new StringBuilder("engines:\n");
        for (int i = 0; i < EngineConfig.MAX_ENGINES; i++) {
            largest.append("  - name: e").append(i).append("\n    api: openai\n    url: http://127.0.0.1:").append(20000 + i)
                    .append("\n    scenarios:\n      - name: a\n      - name: b\n");
        }
        assertThat(Config.parse(largest.toString(), "test.yaml", ENV).engines()).hasSize(EngineConfig.MAX_ENGINES);
    }
}
