package io.tailwatch.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Configs whose proxies would forward to themselves or to each other, compared by resolved address and port
 * (localhost and 127.0.0.1, [::1] and ::1 are one address): each refused naming both keys.
 */
class ProxyLoopConfigTest {
    private static String engine(String name, String url, String listen) {
        return "  - name: " + name + "\n    api: openai\n    url: " + url + "\n    scenarios: []\n"
                + (listen == null ? "" : "    proxy:\n      listen: " + listen + "\n");
    }

    private static Config parse(String engines) throws ConfigException {
        return Config.parse("engines:\n" + engines, "test", Map.of());
    }

    @Test
    void aProxyOnItsOwnEnginesAddressEitherSpellingIsRefused() {
        for (String url : new String[] {"http://127.0.0.1:18081", "http://localhost:18081", "http://LOCALHOST:18081/"}) {
            assertThatThrownBy(() -> parse(engine("a", url, "127.0.0.1:18081")))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("engines[0].url").hasMessageContaining("engines[0].proxy.listen")
                    .hasMessageContaining("itself");
        }
    }

    @Test
    void proxiesPointingAtEachOtherOrAtAnotherEnginesProxyAreRefused() {
        assertThatThrownBy(() -> parse(engine("a", "http://localhost:18092", "127.0.0.1:18091")
                + engine("b", "http://127.0.0.1:18091", "localhost:18092")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].url").hasMessageContaining("engines[1].proxy.listen")
                .hasMessageContaining("engines[1].url").hasMessageContaining("engines[0].proxy.listen");
    }

    @Test
    void oneAddressSpeltTwoWaysForTwoProxiesIsRefused() {
        assertThatThrownBy(() -> parse(engine("a", "http://127.0.0.1:18001", "127.0.0.1:18093")
                + engine("b", "http://127.0.0.1:18002", "localhost:18093")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[1].proxy.listen").hasMessageContaining("engines[0].proxy.listen");
    }

    @Test
    void aProxyOrAnEngineOnTheAgentsOwnListenerEitherSpellingIsRefused() {
        String server = "server:\n  listen: 127.0.0.1:19531\n";
        for (String listen : new String[] {"127.0.0.1:19531", "localhost:19531"}) {
            assertThatThrownBy(() -> Config.parse(server + "engines:\n" + engine("a", "http://127.0.0.1:18001", listen),
                    "test", Map.of()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("engines[0].proxy.listen").hasMessageContaining("server.listen");
        }
        for (String url : new String[] {"http://127.0.0.1:19531", "http://localhost:19531/", "http://[::ffff:127.0.0.1]:19531"}) {
            assertThatThrownBy(() -> Config.parse(server + "engines:\n" + engine("a", url, null), "test", Map.of()))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("engines[0].url").hasMessageContaining("server.listen")
                    .hasMessageContaining("probe itself");
        }
        String every = "server:\n  listen: 0.0.0.0:19531\n  auth_token: ${TOKEN}\n";
        assertThatThrownBy(() -> Config.parse(every + "engines:\n" + engine("a", "http://localhost:19531", null), "test",
                Map.of("TOKEN", "a-token-of-some-length-000000"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("engines[0].url").hasMessageContaining("server.listen");
    }

    @Test
    void anEngineOnAnotherPortOfTheAgentsAddressIsAccepted() throws ConfigException {
        Config c = Config.parse("server:\n  listen: 127.0.0.1:19531\nengines:\n"
                + engine("a", "http://localhost:19532", "127.0.0.1:19533"), "test", Map.of());
        assertThat(c.engines()).hasSize(1);
    }

    @Test
    void distinctAddressesAreAccepted() throws ConfigException {
        Config c = parse(engine("a", "http://127.0.0.1:18001", "127.0.0.1:18093")
                + engine("b", "http://localhost:18002", "localhost:18094"));
        assertThat(c.engines()).hasSize(2);
    }

    @Test
    void aLaneHeaderWithALineBreakOrAKeyInClearIsRefused() {
        String lane = "      lanes:\n        - name: l\n          header: {name: %s, value: \"%s\"}\n";
        assertThatThrownBy(() -> parse(engine("a", "http://127.0.0.1:18001", "127.0.0.1:18095")
                + lane.formatted("X-Lane", "a\\r\\nX-Evil: 1")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("header.value").hasMessageContaining("line break");
        assertThatThrownBy(() -> parse(engine("a", "http://127.0.0.1:18001", "127.0.0.1:18095")
                + lane.formatted("Authorization", "Bearer sk-secret")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("header.name").hasMessageContaining("api_key_sha256");
    }
}
