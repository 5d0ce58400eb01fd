package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The engine-facts record read from what each OpenAI-compatible engine reports about itself. */
class EngineFactsFromEnginesTest {
    static final Duration ASK = Duration.ofSeconds(5);

    static EngineSimulator sim(String flavor, String model, int slots) throws Exception {
        return EngineSimulator.start("openai", flavor, "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withModel(model).withSlots(slots));
    }

    static EngineClient client(EngineSimulator s) {
        return EngineClients.create("openai", URI.create("http://127.0.0.1:" + s.port()), null);
    }

    @Test
    void vllmMlxIsNamedForItselfNotForMlxVlm() throws Exception {
        try (EngineSimulator s = sim("vllm_mlx", "mlx-community/Qwen3-8B-4bit", 1); EngineClient c = client(s)) {
            EngineHealth h = c.health(ASK);
            assertThat(h.up()).isTrue();
            assertThat(h.provider()).as("its /health says healthy, as mlx-vlm's does, but names engine_type").isEqualTo("vllm_mlx");
        }
    }

    @Test
    void llamaCppTellsItsBuildTheGgufFileTypeAndItsSlots() throws Exception {
        try (EngineSimulator s = sim("llamacpp", "tiny-random-llama-Q8_0", 4); EngineClient c = client(s)) {
            EngineHealth h = c.health(ASK);
            assertThat(h.provider()).isEqualTo("llama_cpp");
            assertThat(h.version()).as("/props build_info").isEqualTo("b6000-sim");
            EngineFacts f = EngineFacts.ask(c, "tiny-random-llama-Q8_0", ASK);
            assertThat(f.version()).isEqualTo("b6000-sim");
            assertThat(f.modelFormat()).isEqualTo("gguf");
            assertThat(f.quantization()).isEqualTo("Q8_0");
            assertThat(f.parallelism()).isEqualTo(4);
            assertThat(f.parallelismSource()).isEqualTo("llama.cpp /props total_slots");
        }
    }

    @Test
    void vllmTellsItsVersionAndLmStudioItsFormat() throws Exception {
        try (EngineSimulator v = sim("vllm", "Qwen/Qwen3-8B", 8); EngineClient c = client(v)) {
            EngineFacts f = EngineFacts.ask(c, "Qwen/Qwen3-8B", ASK);
            assertThat(f.version()).isEqualTo("0.10.1-sim");
            assertThat(f.parallelism()).as("vLLM's API does not say").isNull();
        }
        try (EngineSimulator l = sim("lmstudio", "qwen3-8b-mlx", 1); EngineClient c = client(l)) {
            EngineFacts f = EngineFacts.ask(c, "qwen3-8b-mlx", ASK);
            assertThat(f.provider()).isEqualTo("lm_studio");
            assertThat(f.modelFormat()).isEqualTo("mlx");
        }
        try (EngineSimulator m = sim("mlx_lm", "mlx-community/Qwen3-8B-4bit", 1); EngineClient c = client(m)) {
            EngineFacts f = EngineFacts.ask(c, "mlx-community/Qwen3-8B-4bit", ASK);
            assertThat(f).isEqualTo(new EngineFacts(null, "mlx_lm", null, null, null, null, null));
        }
    }

    @Test
    void theFileTypeIsTheOneLlamaCppWritesInTheFilesName() {
        assertThat(OpenAiClient.fileType("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf")).isEqualTo("Q4_K_M");
        assertThat(OpenAiClient.fileType("qwen2.5-7b-instruct-iq3_xxs.gguf")).isEqualTo("IQ3_XXS");
        assertThat(OpenAiClient.fileType("tiny-random-llama-f32.gguf")).isEqualTo("F32");
        assertThat(OpenAiClient.fileType("gemma-2-2b.BF16.gguf")).isEqualTo("BF16");
        assertThat(OpenAiClient.fileType("model.gguf")).isNull();
        assertThat(OpenAiClient.fileType("Qwen3-8B.gguf")).isNull();
    }
}
