package io.tailwatch.runbook;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.config.ServerConfig;
import io.tailwatch.daemon.Json;
import io.tailwatch.rules.Signals;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Listening beyond loopback is said at start, in `config check` and on the `status` screen. */
class ExposureWarningTest {
    @Test
    void onlyNonLoopbackAddressesAreWarnedAbout() {
        for (String host : List.of("127.0.0.1", "127.1.2.3", "::1", "localhost")) {
            assertThat(new ServerConfig(host, 9531, null).exposureWarning()).as(host).isNull();
        }
        assertThat(new ServerConfig("0.0.0.0", 9531, null).exposureWarning())
                .contains("0.0.0.0:9531 is not loopback").contains("without a token");
        assertThat(new ServerConfig("192.168.1.20", 9531, "t").exposureWarning())
                .contains("192.168.1.20:9531").doesNotContain("without a token");
        assertThat(new ServerConfig("127.0.0.1.evil.example", 9531, null).exposureWarning()).isNotNull();
    }

    @Test
    void theStatusScreenShowsTheWarning() throws Exception {
        String warning = new ServerConfig("0.0.0.0", 9531, null).exposureWarning();
        var status = Json.MAPPER.valueToTree(Map.of("version", "0.1.0", "server",
                Map.of("listen", "0.0.0.0:9531", "warnings", List.of(warning))));
        String out = StatusScreen.render("http://127.0.0.1:9531", (com.fasterxml.jackson.databind.JsonNode) status,
                Json.MAPPER.readTree("{\"alerts\":[]}"), new Signals(
                        new Signals.Host(null, null, null, null, null, null, null), List.of(), List.of()));
        assertThat(out).contains("WARNING " + warning);
    }
}
