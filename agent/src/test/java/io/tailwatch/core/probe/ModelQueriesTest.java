package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.core.kv.ModelShape;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The model questions the tools ask (shape for kv-budget, facts for the capacity reports, unload for
 * bench) answered by the engine client against the simulator's Ollama and OpenAI wires.
 */
class ModelQueriesTest {
    static final Duration DEADLINE = Duration.ofSeconds(5);

    static EngineSimulator sim(String api) throws IOException {
        return EngineSimulator.start(api, "127.0.0.1", 0,
                SimulatorOptions.defaults(api).withTiming(Duration.ofMillis(1), 2000));
    }

    static EngineClient client(EngineApi api, int port) {
        return api.client(URI.create("http://127.0.0.1:" + port), null, Duration.ofSeconds(1));
    }

    @Test
    void ollamaTellsTheShapeFromApiShow() throws Exception {
        try (EngineSimulator sim = sim("ollama"); EngineClient c = client(EngineApi.OLLAMA, sim.port())) {
            ModelShape s = c.modelShape(SimulatorOptions.DEFAULT_OLLAMA_MODEL, DEADLINE);
            // The simulator serves a Llama-3-8B: 32 layers, 8 KV heads of 4096 / 32 = 128.
            assertThat(s.architecture()).isEqualTo("llama");
            assertThat(s.layers()).isEqualTo(32);
            assertThat(s.kvHeadsPerLayer()).hasSize(32).containsOnly(8);
            assertThat(s.keyLength()).isEqualTo(128);
            assertThat(s.valueLength()).isEqualTo(128);
            assertThat(sim.requests()).anySatisfy(b -> assertThat(b.path("model").asText())
                    .isEqualTo(SimulatorOptions.DEFAULT_OLLAMA_MODEL));
        }
    }

    @Test
    void anUnknownModelIsAFailureNamingTheRequest() throws Exception {
        try (EngineSimulator sim = sim("ollama"); EngineClient c = client(EngineApi.OLLAMA, sim.port())) {
            assertThatThrownBy(() -> c.modelShape("no-such-model", DEADLINE)).isInstanceOf(EngineQueryException.class)
                    .hasMessage("POST http://127.0.0.1:" + sim.port() + "/api/show: HTTP 404: model 'no-such-model' not found")
                    .satisfies(e -> assertThat(((EngineQueryException) e).unsupported()).isFalse());
        }
    }

    @Test
    void anEngineThatIsNotThereIsAFailureNotAShape() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (EngineClient c = client(EngineApi.OLLAMA, port)) {
            assertThatThrownBy(() -> c.modelShape("m", DEADLINE)).isInstanceOf(EngineQueryException.class)
                    .hasMessageStartingWith("POST http://127.0.0.1:" + port + "/api/show: ");
            assertThat(c.modelFacts("m", DEADLINE)).isEqualTo(ModelFacts.UNKNOWN);
            assertThat(c.unload("m", DEADLINE)).isFalse();
        }
    }

    @Test
    void ollamaTellsTheWeightsFactsAndUnloads() throws Exception {
        try (EngineSimulator sim = sim("ollama"); EngineClient c = client(EngineApi.OLLAMA, sim.port())) {
            ModelFacts f = c.modelFacts(SimulatorOptions.DEFAULT_OLLAMA_MODEL, DEADLINE);
            assertThat(f.format()).isEqualTo("gguf");
            assertThat(f.quantization()).isEqualTo("Q4_K_M");
            assertThat(f.digest()).matches("[0-9a-f]{64}");
            assertThat(c.modelFacts("no-such-model", DEADLINE).digest()).isNull();

            assertThat(c.unload(SimulatorOptions.DEFAULT_OLLAMA_MODEL, DEADLINE)).isTrue();
            List<com.fasterxml.jackson.databind.JsonNode> bodies = sim.requests();
            assertThat(bodies).anySatisfy(b -> {
                assertThat(b.path("keep_alive").isNumber()).isTrue();
                assertThat(b.path("keep_alive").asInt(-1)).isZero();
                assertThat(b.path("stream").asBoolean(true)).isFalse();
            });
            assertThat(c.unload("no-such-model", DEADLINE)).as("the engine refuses: 404").isFalse();
        }
    }

    @Test
    void theOpenAiApiTellsNoShapeAndCannotUnload() throws Exception {
        try (EngineSimulator sim = sim("openai"); EngineClient c = client(EngineApi.OPENAI, sim.port())) {
            assertThatThrownBy(() -> c.modelShape(SimulatorOptions.DEFAULT_OPENAI_MODEL, DEADLINE))
                    .isInstanceOf(EngineQueryException.class).hasMessageContaining("openai API does not tell")
                    .satisfies(e -> assertThat(((EngineQueryException) e).unsupported()).isTrue());
            assertThat(c.modelFacts(SimulatorOptions.DEFAULT_OPENAI_MODEL, DEADLINE)).isEqualTo(ModelFacts.UNKNOWN);
            assertThat(c.unload(SimulatorOptions.DEFAULT_OPENAI_MODEL, DEADLINE)).isFalse();
            assertThat(sim.requests()).as("no request was posted to the engine").isEmpty();
        }
    }
}
