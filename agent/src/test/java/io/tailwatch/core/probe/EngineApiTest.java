package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import io.tailwatch.daemon.engine.EngineDiscovery;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The registry of engine APIs is the one list: the config, the clients and discovery all follow it. */
class EngineApiTest {
    static Config withApi(String api) throws ConfigException {
        return Config.parse("engines:\n  - name: e\n    api: " + api + "\n    url: http://127.0.0.1:9/v1/\n", "t.yaml",
                Map.of());
    }

    @Test
    void everyApiIsAcceptedByTheConfigAndHasItsClient() throws Exception {
        assertThat(EngineApi.values()).isNotEmpty();
        for (EngineApi api : EngineApi.values()) {
            Config c = withApi(api.wireName());
            assertThat(c.engine("e").api()).isEqualTo(api.wireName());
            try (EngineClient client = EngineClients.create(c.engine("e").api(), c.engine("e").url(), null,
                    c.engine("e").connectTimeout())) {
                assertThat(client.api()).isSameAs(api);
                // the client talks to the server root: /v1 and trailing slashes are the client's business
                assertThat(client.baseUri()).isEqualTo(URI.create("http://127.0.0.1:9"));
            }
            assertThat(EngineApi.of(api.wireName())).isSameAs(api);
            assertThat(api.toString()).isEqualTo(api.wireName());
            assertThat(api.description()).isNotBlank();
        }
    }

    @Test
    void namesAreDistinctAndWrittenAsInAConfig() {
        List<String> names = EngineApi.names();
        assertThat(new HashSet<>(names)).hasSameSizeAs(names);
        assertThat(names).allMatch(n -> n.matches("[a-z][a-z0-9_]*"));
        assertThat(EngineApi.choices()).isEqualTo(names.size() == 1 ? names.get(0)
                : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1));
    }

    @Test
    void anUnknownApiIsRefusedNamingTheFieldAndTheValidValues() {
        assertThatThrownBy(() -> withApi("vllm")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].api")
                .hasMessageContaining("expected one of " + String.join(", ", EngineApi.names()))
                .hasMessageContaining("got 'vllm'");
        assertThatThrownBy(() -> Config.parse("engines:\n  - name: e\n    url: http://127.0.0.1:9\n", "t.yaml", Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("an engine needs api: " + EngineApi.choices());
        assertThatThrownBy(() -> EngineClients.create("vllm", URI.create("http://127.0.0.1:9"), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown engine API 'vllm'")
                .hasMessageContaining(EngineApi.choices());
        assertThat(EngineApi.find("OLLAMA")).as("names are exact").isEmpty();
    }

    @Test
    void discoveryChecksEveryApisWellKnownPorts() {
        for (EngineApi api : EngineApi.values()) {
            assertThat(EngineDiscovery.WELL_KNOWN_PORTS).containsAll(api.wellKnownPorts());
        }
        assertThat(EngineDiscovery.WELL_KNOWN_PORTS).containsExactly(11434, 8080, 1234, 8000);
        assertThat(EngineApi.allWellKnownPorts()).doesNotHaveDuplicates();
    }

    @Test
    void theDefaultConnectTimeoutIsTheConfigs() {
        assertThat(EngineClients.DEFAULT_CONNECT_TIMEOUT).isEqualTo(Duration.ofSeconds(2))
                .isEqualTo(io.tailwatch.core.config.EngineConfig.DEFAULT_CONNECT_TIMEOUT);
    }
}
