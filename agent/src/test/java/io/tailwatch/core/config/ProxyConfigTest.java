package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProxyConfigTest {
    private static String engine(String name, String proxy) {
        return "  - name: " + name + "\n    api: openai\n    url: http://127.0.0.1:8080\n" + proxy;
    }

    private static List<String> problems(String yaml) {
        try {
            Config.parse(yaml, "test", Map.of());
            return List.of();
        } catch (ConfigException e) {
            return e.problems().list().stream().map(Problems.Problem::toString).toList();
        }
    }

    @Test
    void offUnlessTheEngineHasTheSection() throws Exception {
        Config c = Config.parse("engines:\n" + engine("mlx", ""), "test", Map.of());
        assertThat(c.engine("mlx").proxy()).isNull();
    }

    @Test
    void listenWithTheDefaultsOfEveryOtherKey() throws Exception {
        Config c = Config.parse("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:8081\n"), "test", Map.of());
        ProxyConfig p = c.engine("mlx").proxy();
        assertThat(p.host()).isEqualTo("127.0.0.1");
        assertThat(p.port()).isEqualTo(8081);
        assertThat(p.maxConnections()).isEqualTo(64);
        assertThat(p.idleTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(p.timeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(p.connectionRest()).isEqualTo(Duration.ofMillis(200));
        assertThat(p.exposed()).isFalse();
    }

    @Test
    void theConnectionRestMayBeZeroAndChangingItNeedsANewListener() throws Exception {
        ProxyConfig none = Config.parse("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:8081\n"
                + "      connection_rest: 0s\n"), "test", Map.of()).engine("mlx").proxy();
        assertThat(none.connectionRest()).isZero();
        ProxyConfig dflt = Config.parse("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:8081\n"), "test",
                Map.of()).engine("mlx").proxy();
        assertThat(none.sameListener(dflt)).isFalse();
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:1\n      connection_rest: 10s\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy.connection_rest")
                        .contains("between 0s and 5s"));
    }

    @Test
    void aLaneWindowOutsideOneSecondToAnHourIsNamed() {
        for (String bad : List.of("0s", "500ms", "2h")) {
            assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:1\n      lane_window: " + bad + "\n")))
                    .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy.lane_window"));
        }
    }

    @Test
    void badValuesAreNamedByTheirKey() {
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      max_connections: 4\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy").contains("needs listen"));
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy.listen").contains("HOST:PORT"));
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:1\n      max_connections: 0\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy.max_connections"));
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:1\n      idle_timeout: 2h\n")))
                .isNotEmpty().anySatisfy(p -> assertThat(p).contains("engines[0].proxy.idle_timeout"));
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:1\n      lsiten: x\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy.lsiten").contains("unknown key"));
    }

    @Test
    void aListenerBeyondLoopbackNeedsTheWebConfig() {
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: 0.0.0.0:8081\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[0].proxy.listen")
                        .contains("not a loopback address").contains("server.web_config_file is not set"));
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: '[::1]:8081'\n"))).isEmpty();
        assertThat(problems("engines:\n" + engine("mlx", "    proxy:\n      listen: localhost:8081\n"))).isEmpty();
    }

    @Test
    void twoProxiesOnOnePortOrOnTheAgentsOwnAreRefused() {
        assertThat(problems("engines:\n" + engine("a", "    proxy:\n      listen: 127.0.0.1:8081\n")
                + engine("b", "    proxy:\n      listen: 127.0.0.1:8081\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("engines[1].proxy.listen").contains("engine 'a'"));
        assertThat(problems("server:\n  listen: 127.0.0.1:9531\nengines:\n" + engine("a", "    proxy:\n      listen: 127.0.0.1:9531\n")))
                .singleElement().satisfies(p -> assertThat(p).contains("server.listen"));
    }

    @Test
    void lanesAreReadInOrderWithTheirSlo() throws Exception {
        Config c = Config.parse("engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:8081\n      lanes:\n"
                + "        - name: interactive\n          header: {name: X-Lane, value: i}\n"
                + "          slo: {ttft_p95: 2s, e2e_p95: 30s, target: 0.99}\n"
                + "        - name: batch\n          api_key_sha256: " + "AB".repeat(32) + "\n"
                + "        - name: default\n          slo: {e2e_p95: 1m}\n"), "test", Map.of());
        List<ProxyConfig.Lane> lanes = c.engine("mlx").proxy().lanes();
        assertThat(lanes).extracting(ProxyConfig.Lane::name).containsExactly("interactive", "batch", "default");
        assertThat(lanes.get(0).slo()).isEqualTo(new ProxyConfig.Slo(Duration.ofSeconds(2), Duration.ofSeconds(30), 0.99));
        assertThat(lanes.get(1).apiKeySha256()).isEqualTo("ab".repeat(32));
        assertThat(lanes.get(1).toString()).doesNotContain("ab");
        assertThat(lanes.get(2).slo().target()).isEqualTo(0.95);
    }

    @Test
    void aLaneNeedsSomethingToMatchAndAKeyOnlyByItsHash() {
        String head = "engines:\n" + engine("mlx", "    proxy:\n      listen: 127.0.0.1:8081\n      lanes:\n");
        assertThat(problems(head + "        - name: batch\n")).singleElement()
                .satisfies(p -> assertThat(p).contains("engines[0].proxy.lanes[0]").contains("matches nothing"));
        assertThat(problems(head + "        - name: batch\n          api_key_sha256: sk-live-123\n")).singleElement()
                .satisfies(p -> assertThat(p).contains("lanes[0].api_key_sha256").contains("64 hex digits"));
        assertThat(problems(head + "        - name: default\n          path_prefix: /v1\n")).singleElement()
                .satisfies(p -> assertThat(p).contains("lanes[0].name").contains("no match keys"));
        assertThat(problems(head + "        - name: a\n          model: m\n          slo: {target: 0.5}\n")).singleElement()
                .satisfies(p -> assertThat(p).contains("lanes[0].slo").contains("ttft_p95 or e2e_p95"));
        assertThat(problems(head + "        - name: a\n          model: m\n        - name: a\n          model: n\n"))
                .singleElement().satisfies(p -> assertThat(p).contains("duplicate lane name"));
    }
}
