package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The connect deadline is the engine's (connect_timeout): one client per engine connects for every
 * scenario, health check and signal read. A scenario's timeouts.connect is read only while it cannot
 * be ambiguous; scenarios that disagree are an error naming the key and where it moved.
 */
class EngineConnectTimeoutTest {
    static EngineConfig engine(String engineKeys, String firstTimeouts, String secondTimeouts) throws ConfigException {
        String yaml = "engines:\n  - name: e\n    api: ollama\n    url: http://127.0.0.1:11434\n" + engineKeys
                + "    scenarios:\n"
                + "      - {name: interactive, interval: 60s, timeouts: {" + firstTimeouts + "}}\n"
                + "      - {name: long, interval: 5m, timeouts: {" + secondTimeouts + "}}\n";
        return Config.parse(yaml, "t.yaml", Map.of()).engines().get(0);
    }

    @Test
    void theEnginesConnectTimeoutIsRead() throws Exception {
        EngineConfig e = engine("    connect_timeout: 750ms\n", "first_token: 30s, total: 50s",
                "first_token: 120s, total: 240s");
        assertThat(e.connectTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(e.toString()).contains("connectTimeout=750ms");
    }

    @Test
    void withoutOneTheDefaultIsTwoSecondsAsTheShippedFileSays() throws Exception {
        EngineConfig e = engine("", "total: 50s", "total: 240s");
        assertThat(e.connectTimeout()).isEqualTo(Duration.ofSeconds(2)).isEqualTo(EngineConfig.DEFAULT_CONNECT_TIMEOUT);
        assertThat(Config.defaultText()).contains("connect_timeout: 2s").doesNotContain("{connect:");
    }

    @Test
    void aScenarioKeyThatAgreesIsStillRead() throws Exception {
        assertThat(engine("", "connect: 400ms, total: 50s", "total: 240s").connectTimeout())
                .isEqualTo(Duration.ofMillis(400));
        assertThat(engine("", "connect: 400ms, total: 50s", "connect: 400ms, total: 240s").connectTimeout())
                .isEqualTo(Duration.ofMillis(400));
        assertThat(engine("    connect_timeout: 400ms\n", "connect: 400ms, total: 50s", "total: 240s").connectTimeout())
                .isEqualTo(Duration.ofMillis(400));
    }

    @Test
    void aSecondScenarioWithAnotherValueIsAnErrorNotSilentlyIgnored() {
        // Before, the engine's client took the first scenario's value and dropped this one.
        assertThatThrownBy(() -> engine("", "connect: 2s, total: 50s", "connect: 500ms, total: 240s"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].scenarios[1].timeouts.connect")
                .hasMessageContaining("belongs to the engine")
                .hasMessageContaining("set connect_timeout on the engine")
                .hasMessageContaining("this scenario says 500ms")
                .hasMessageContaining("scenario 'interactive' timeouts.connect says 2s");
    }

    @Test
    void aScenarioDisagreeingWithTheEngineIsAnError() {
        assertThatThrownBy(() -> engine("    connect_timeout: 1s\n", "connect: 3s, total: 50s", "total: 240s"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].scenarios[0].timeouts.connect")
                .hasMessageContaining("connect_timeout says 1s");
    }

    @Test
    void theConnectTimeoutMustFitEveryScenariosTotal() {
        assertThatThrownBy(() -> engine("    connect_timeout: 10s\n", "first_token: 1s, total: 5s", "total: 240s"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].connect_timeout")
                .hasMessageContaining("must not be longer than scenario 'interactive' timeouts.total (5s)");
        assertThatThrownBy(() -> engine("    connect_timeout: 1ms\n", "total: 50s", "total: 240s"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("engines[0].connect_timeout");
    }
}
