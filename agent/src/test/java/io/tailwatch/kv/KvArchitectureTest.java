package io.tailwatch.kv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KvArchitectureTest {
    private static final ObjectMapper M = new ObjectMapper();

    private static JsonNode json(String s) throws Exception {
        return M.readTree(s);
    }

    @Test
    void llama_show_response_derives_head_size_from_embedding_length() throws Exception {
        KvArchitecture a = KvArchitecture.fromOllamaShow(json("""
                {"license":"...","modelfile":"...","details":{"format":"gguf","quantization_level":"Q4_K_M"},
                 "model_info":{"general.architecture":"llama","llama.block_count":32,
                  "llama.attention.head_count":32,"llama.attention.head_count_kv":8,
                  "llama.embedding_length":4096,"llama.context_length":131072,"llama.vocab_size":128256}}
                """));
        assertThat(a.architecture()).isEqualTo("llama");
        assertThat(a.layers()).isEqualTo(32);
        assertThat(a.keyLength()).isEqualTo(128);
        assertThat(a.valueLength()).isEqualTo(128);
        assertThat(a.contextLength()).isEqualTo(131072L);
        assertThat(a.bytesPerToken(2.0)).isEqualTo(128 * 1024L);
    }

    @Test
    void qwen3_explicit_key_and_value_lengths_win() throws Exception {
        // Qwen3-14B: embedding 5120 / 40 heads would give 128 too, so make the explicit lengths differ to prove they are used.
        KvArchitecture a = KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"qwen3","qwen3.block_count":40,"qwen3.attention.head_count":40,
                 "qwen3.attention.head_count_kv":8,"qwen3.embedding_length":5120,
                 "qwen3.attention.key_length":128,"qwen3.attention.value_length":128}
                """));
        assertThat(a.bytesPerToken(2.0)).isEqualTo(163_840L);
        KvArchitecture b = KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"x","x.block_count":2,"x.attention.head_count":4,
                 "x.attention.head_count_kv":2,"x.embedding_length":512,
                 "x.attention.key_length":192,"x.attention.value_length":64}
                """));
        assertThat(b.keyLength()).isEqualTo(192);
        assertThat(b.valueLength()).isEqualTo(64);
        assertThat(b.bytesPerToken(2.0)).isEqualTo(2L * (192 + 64) * 2 * 2);
    }

    @Test
    void per_layer_kv_head_arrays_are_summed() throws Exception {
        KvArchitecture a = KvArchitecture.fromOllamaShow(json("""
                {"model_info":{"general.architecture":"hybrid","hybrid.block_count":4,
                 "hybrid.attention.head_count":[16,16,16,16],"hybrid.attention.head_count_kv":[4,0,4,0],
                 "hybrid.embedding_length":2048}}
                """));
        assertThat(a.uniformHeads()).isFalse();
        assertThat(a.keyLength()).isEqualTo(128);
        assertThat(a.bytesPerToken(2.0)).isEqualTo((4 + 4) * 256 * 2L);
    }

    @Test
    void kv_heads_default_to_head_count() throws Exception {
        KvArchitecture a = KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"mha","mha.block_count":2,"mha.attention.head_count":8,"mha.embedding_length":512}
                """));
        assertThat(a.kvHeadsPerLayer()).containsExactly(8, 8);
    }

    @Test
    void missing_and_malformed_keys_are_named() {
        assertThatThrownBy(() -> KvArchitecture.fromOllamaShow(json("{\"model_info\":{}}")))
                .hasMessageContaining("general.architecture");
        assertThatThrownBy(() -> KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"llama","llama.attention.head_count":8}""")))
                .hasMessageContaining("llama.block_count");
        assertThatThrownBy(() -> KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"llama","llama.block_count":3,"llama.attention.head_count":8,
                 "llama.attention.head_count_kv":[1,2],"llama.embedding_length":512}""")))
                .hasMessageContaining("llama.attention.head_count_kv").hasMessageContaining("block_count is 3");
        assertThatThrownBy(() -> KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"llama","llama.block_count":3,"llama.attention.head_count":8}""")))
                .hasMessageContaining("llama.embedding_length");
        assertThatThrownBy(() -> KvArchitecture.fromOllamaShow(json("""
                {"general.architecture":"llama","llama.block_count":"many"}""")))
                .hasMessageContaining("llama.block_count");
    }
}
