package io.tailwatch.daemon.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.probe.EngineFlavor;
import io.tailwatch.tools.sim.EngineSimulator;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every engine flavour discovery can find makes a valid engine config, with its API, name and process names. */
class EngineFlavorTest {
    static List<EngineDiscovery.Found> oneOfEach() {
        List<EngineDiscovery.Found> found = new ArrayList<>();
        int port = 20000;
        for (EngineFlavor f : EngineFlavor.values()) {
            found.add(new EngineDiscovery.Found(port, URI.create("http://127.0.0.1:" + port), f, "test", null,
                    List.of("m-" + f.kind())));
            port++;
        }
        return found;
    }

    @Test
    void everyFlavourBecomesAnEngineOfItsApi() {
        List<EngineDiscovery.Found> found = oneOfEach();
        List<EngineConfig> engines = EngineDiscovery.engines(found);
        assertThat(engines).hasSize(EngineFlavor.values().length);
        for (int i = 0; i < engines.size(); i++) {
            EngineFlavor f = EngineFlavor.values()[i];
            EngineConfig e = engines.get(i);
            assertThat(e.api()).as(f.kind()).isEqualTo(f.api().wireName());
            assertThat(e.name()).as(f.kind()).isEqualTo(f.engineName()).matches(EngineConfig.NAME);
            assertThat(e.processNames()).as(f.kind()).isEqualTo(f.processNames());
            assertThat(found.get(i).kind()).isEqualTo(f.kind());
            assertThat(found.get(i).api()).isEqualTo(f.api().wireName());
            assertThat(EngineFlavor.find(f.kind())).contains(f);
        }
        assertThat(new HashSet<>(engines.stream().map(EngineConfig::name).toList())).hasSize(engines.size());
    }

    @Test
    void theConfigBlockDetectPrintsIsAccepted() throws Exception {
        String block = EngineDiscovery.configBlock(oneOfEach());
        Config c = Config.parse(block, "detect", Map.of());
        assertThat(c.engines()).extracting(EngineConfig::api)
                .containsExactlyElementsOf(java.util.Arrays.stream(EngineFlavor.values()).map(f -> f.api().wireName()).toList());
        // a server that serves one model gets it named; the others only a comment
        for (EngineFlavor f : EngineFlavor.values()) {
            assertThat(c.engine(f.engineName()).model()).as(f.kind()).isEqualTo(f.servesOneModel() ? "m-" + f.kind() : null);
        }
    }

    @Test
    void everySimulatedFlavourIsAKnownFlavourOfTheOpenAiApi() {
        for (String s : EngineSimulator.FLAVORS) {
            assertThat(EngineFlavor.find(s)).as(s).isPresent();
            assertThat(EngineFlavor.find(s).get().api()).isEqualTo(EngineApi.OPENAI);
        }
    }
}
