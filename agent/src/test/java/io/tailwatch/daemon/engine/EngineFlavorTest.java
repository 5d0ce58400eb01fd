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

    /**
     * Model ids an engine could list: one with line breaks that would add keys (a URL and an api_key from
     * the environment), one that is only an environment reference, and ones YAML would read as something
     * else unquoted. The printed block parses back to exactly the values it shows, and to nothing more.
     */
    @Test
    void theReadyBlockHoldsOnlyTheValuesItShowsWhateverTheEngineLists() throws Exception {
        String inject = "m\n    url: http://evil.example/\n    api_key: ${HOME}";
        List<String> odd = List.of("yes", "null", "- x: #y", "a: b", "'q\" \\", "007", "~", "@at", "%pct", "*star", "&amp");
        List<EngineDiscovery.Found> found = new ArrayList<>();
        found.add(new EngineDiscovery.Found(20001, URI.create("http://127.0.0.1:20001"), EngineFlavor.VLLM, "t", null,
                List.of(inject)));
        found.add(new EngineDiscovery.Found(20002, URI.create("http://127.0.0.1:20002"), EngineFlavor.LLAMACPP, "t", null,
                List.of("${SECRET_TOKEN}")));
        int port = 20003;
        for (String id : odd) {
            found.add(new EngineDiscovery.Found(port, URI.create("http://127.0.0.1:" + port), EngineFlavor.VLLM, "t", null,
                    List.of(id)));
            port++;
        }
        found.add(new EngineDiscovery.Found(port, URI.create("http://127.0.0.1:" + port), EngineFlavor.LMSTUDIO, "t", null,
                List.of("x\u001b[2J", "ok-model")));
        String block = EngineDiscovery.configBlock(found);

        com.fasterxml.jackson.databind.JsonNode tree = new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(block);
        com.fasterxml.jackson.databind.JsonNode engines = tree.get("engines");
        assertThat(tree.size()).isEqualTo(1);
        assertThat(engines).hasSize(found.size());
        for (com.fasterxml.jackson.databind.JsonNode e : engines) {
            assertThat(e.fieldNames()).toIterable().isSubsetOf("name", "api", "url", "model", "process");
            assertThat(e.get("url").asText()).startsWith("http://127.0.0.1:200");
        }
        // The injected and the environment ids are refused (said in a comment), never a value.
        assertThat(engines.get(0).has("model")).isFalse();
        assertThat(engines.get(1).has("model")).isFalse();
        assertThat(block).doesNotContain("evil.example").doesNotContain("${").doesNotContain("\u001b")
                .contains("name the model yourself");
        for (int i = 0; i < odd.size(); i++) {
            assertThat(engines.get(2 + i).get("model").isTextual()).as(odd.get(i)).isTrue();
            assertThat(engines.get(2 + i).get("model").asText()).as(odd.get(i)).isEqualTo(odd.get(i));
        }
        assertThat(block).contains("# model: ok-model");
        // The config reads the same values (no key added, no variable expanded).
        Config c = Config.parse(block, "detect", Map.of("HOME", "/home/x", "SECRET_TOKEN", "s3cret"));
        assertThat(c.engines()).hasSize(found.size());
        assertThat(c.engines()).allSatisfy(e -> assertThat(e.url().toString()).startsWith("http://127.0.0.1:200"));
        for (int i = 0; i < odd.size(); i++) {
            assertThat(c.engines().get(2 + i).model()).isEqualTo(odd.get(i));
        }
    }
}
