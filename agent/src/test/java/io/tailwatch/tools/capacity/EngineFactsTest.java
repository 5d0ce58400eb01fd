package io.tailwatch.tools.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.probe.EngineClient;
import io.tailwatch.core.probe.EngineClients;
import io.tailwatch.core.probe.EngineFacts;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The facts a capacity report records, asked through the engine client of the simulator's wires. */
class EngineFactsTest {
    static final Duration ASK = Duration.ofSeconds(5);

    @Test
    void ollamaTellsVersionDigestFormatAndQuantization() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("ollama", "127.0.0.1", 0, SimulatorOptions.defaults("ollama"));
             EngineClient c = EngineClients.create("ollama", URI.create("http://127.0.0.1:" + sim.port()), null)) {
            EngineFacts f = EngineFacts.ask(c, SimulatorOptions.DEFAULT_OLLAMA_MODEL, ASK);
            assertThat(f.version()).isEqualTo("0.12.6");
            assertThat(f.provider()).isEqualTo("ollama");
            assertThat(f.modelDigest()).matches("[0-9a-f]{64}");
            assertThat(f.modelFormat()).isEqualTo("gguf");
            assertThat(f.quantization()).isEqualTo("Q4_K_M");

            EngineFacts none = EngineFacts.ask(c, null, ASK);
            assertThat(none.version()).isEqualTo("0.12.6");
            assertThat(none.modelDigest()).isNull();
            assertThat(none.modelFormat()).isNull();
        }
    }

    @Test
    void anOpenAiServerTellsOnlyWhatItKnows() throws Exception {
        try (EngineSimulator sim = EngineSimulator.start("openai", "127.0.0.1", 0, SimulatorOptions.defaults("openai"));
             EngineClient c = EngineClients.create("openai", URI.create("http://127.0.0.1:" + sim.port()), null)) {
            EngineFacts f = EngineFacts.ask(c, SimulatorOptions.DEFAULT_OPENAI_MODEL, ASK);
            assertThat(f.provider()).isEqualTo("mlx_lm");
            assertThat(f.modelDigest()).isNull();
            assertThat(f.modelFormat()).isNull();
            assertThat(f.quantization()).isNull();
        }
    }
}
