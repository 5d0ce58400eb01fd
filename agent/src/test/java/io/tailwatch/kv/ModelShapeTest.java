package io.tailwatch.kv;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelShapeTest {
    private static final ObjectMapper M = new ObjectMapper();

    private static ModelShape parse(String modelInfo) throws Exception {
        return ModelShape.fromModelInfo(M.readTree(modelInfo));
    }

    private static long perToken(ModelShape s, double bytes) {
        return KvCacheMath.bytesPerToken(s.kvHeadsPerLayer().stream().mapToInt(Integer::intValue).toArray(),
                s.keyLength(), s.valueLength(), bytes);
    }

    @Test
    void llama_head_size_comes_from_embedding_length() throws Exception {
        ModelShape a = parse("""
                {"general.architecture":"llama","llama.block_count":32,
                 "llama.attention.head_count":32,"llama.attention.head_count_kv":8,
                 "llama.embedding_length":4096,"llama.context_length":131072,"llama.vocab_size":128256}
                """);
        assertThat(a.architecture()).isEqualTo("llama");
        assertThat(a.layers()).isEqualTo(32);
        assertThat(a.keyLength()).isEqualTo(128);
        assertThat(a.valueLength()).isEqualTo(128);
        assertThat(a.contextLength()).isEqualTo(131072L);
        // engines.md: 32 x 256 x 8 x 2 B = 128 KiB per token
        assertThat(perToken(a, 2.0)).isEqualTo(128 * 1024L);
        assertThat(KvCacheMath.bytesPerToken(a, 2.0)).isEqualTo(128 * 1024.0);
    }

    @Test
    void explicit_key_and_value_lengths_win() throws Exception {
        ModelShape q = parse("""
                {"general.architecture":"qwen3","qwen3.block_count":40,"qwen3.attention.head_count":40,
                 "qwen3.attention.head_count_kv":8,"qwen3.embedding_length":5120,
                 "qwen3.attention.key_length":128,"qwen3.attention.value_length":128}
                """);
        assertThat(perToken(q, 2.0)).isEqualTo(163_840L);
        ModelShape b = parse("""
                {"general.architecture":"x","x.block_count":2,"x.attention.head_count":4,
                 "x.attention.head_count_kv":2,"x.embedding_length":512,
                 "x.attention.key_length":192,"x.attention.value_length":64}
                """);
        assertThat(b.keyLength()).isEqualTo(192);
        assertThat(b.valueLength()).isEqualTo(64);
        assertThat(perToken(b, 2.0)).isEqualTo(2L * (192 + 64) * 2 * 2);
    }

    @Test
    void per_layer_kv_head_arrays_are_summed() throws Exception {
        ModelShape a = parse("""
                {"general.architecture":"hybrid","hybrid.block_count":4,
                 "hybrid.attention.head_count":[16,16,16,16],"hybrid.attention.head_count_kv":[4,0,4,0],
                 "hybrid.embedding_length":2048}
                """);
        assertThat(a.keyLength()).isEqualTo(128);
        assertThat(perToken(a, 2.0)).isEqualTo((4 + 4) * 256 * 2L);
    }

    @Test
    void kv_heads_default_to_head_count() throws Exception {
        ModelShape a = parse("""
                {"general.architecture":"mha","mha.block_count":2,"mha.attention.head_count":8,"mha.embedding_length":512}
                """);
        assertThat(a.kvHeadsPerLayer()).containsExactly(8, 8);
    }

    @Test
    void missing_and_malformed_keys_are_named() {
        assertThatThrownBy(() -> parse("{}")).hasMessageContaining("general.architecture");
        assertThatThrownBy(() -> parse("""
                {"general.architecture":"llama","llama.attention.head_count":8}"""))
                .hasMessageContaining("llama.block_count");
        assertThatThrownBy(() -> parse("""
                {"general.architecture":"llama","llama.block_count":3,"llama.attention.head_count":8,
                 "llama.attention.head_count_kv":[1,2],"llama.embedding_length":512}"""))
                .hasMessageContaining("llama.attention.head_count_kv").hasMessageContaining("3 layers");
        assertThatThrownBy(() -> parse("""
                {"general.architecture":"llama","llama.block_count":3,"llama.attention.head_count":8}"""))
                .hasMessageContaining("llama.embedding_length");
        assertThatThrownBy(() -> parse("""
                {"general.architecture":"llama","llama.block_count":"many"}"""))
                .hasMessageContaining("llama.block_count");
    }
}
