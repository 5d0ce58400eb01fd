package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ModelNamesTest {
    @Test
    void aModelNamedByItsFilesPathIsShownByTheFilesName() {
        assertThat(ModelNames.display("/var/lib/models/tiny-random-llama-f16.gguf")).isEqualTo("tiny-random-llama-f16.gguf");
        assertThat(ModelNames.display("~/models/qwen.gguf")).isEqualTo("qwen.gguf");
        assertThat(ModelNames.display("./m.bin")).isEqualTo("m.bin");
        assertThat(ModelNames.display("C:\\models\\phi-3.gguf")).isEqualTo("phi-3.gguf");
        assertThat(ModelNames.display("models/llama.gguf")).isEqualTo("llama.gguf");
    }

    @Test
    void hubNamesTagsAndAliasesStayAsTheyAre() {
        assertThat(ModelNames.display("mlx-community/Qwen2.5-7B-Instruct-4bit")).isEqualTo("mlx-community/Qwen2.5-7B-Instruct-4bit");
        assertThat(ModelNames.display("llama3.1:8b")).isEqualTo("llama3.1:8b");
        assertThat(ModelNames.display("tiny")).isEqualTo("tiny");
        assertThat(ModelNames.display(null)).isNull();
        assertThat(ModelNames.display("/")).isEqualTo("/");
    }
}
