package io.tailwatch.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ModelShapeTest {
    static JsonNode json(String s) throws Exception {
        return new ObjectMapper().readTree(s);
    }

    @Test
    void llamaShapeFromModelInfoGives128KibPerToken() throws Exception {
        ModelShape s = ModelShape.fromModelInfo(json("""
                {"general.architecture":"llama","llama.block_count":32,"llama.attention.head_count":32,
                 "llama.attention.head_count_kv":8,"llama.embedding_length":4096,"llama.context_length":131072}"""));
        assertThat(s.keyLength()).isEqualTo(128);
        assertThat(s.valueLength()).isEqualTo(128);
        assertThat(s.contextLength()).isEqualTo(131072L);
        assertThat(KvCacheMath.bytesPerToken(s, KvCacheMath.bytesPerElement("f16"))).isEqualTo(128 * 1024.0);
        assertThat(KvCacheMath.bytesPerToken(s, KvCacheMath.bytesPerElement("q8_0"))).isEqualTo(64 * 1024.0);
        assertThat(KvCacheMath.bytesPerToken(s, KvCacheMath.bytesPerElement("q4_0"))).isEqualTo(32 * 1024.0);
        assertThat(KvCacheMath.contextBytes(s, 2, 4096)).isEqualTo(512.0 * 1024 * 1024);
    }

    @Test
    void qwen3With40LayersIs160KibPerTokenAndTheBriefsBudget() throws Exception {
        ModelShape s = ModelShape.fromModelInfo(json("""
                {"general.architecture":"qwen3","qwen3.block_count":40,"qwen3.attention.head_count":40,
                 "qwen3.attention.head_count_kv":8,"qwen3.embedding_length":5120,
                 "qwen3.attention.key_length":128,"qwen3.attention.value_length":128}"""));
        double perToken = KvCacheMath.bytesPerToken(s, 2);
        assertThat(perToken).isEqualTo(160 * 1024.0);
        assertThat(KvCacheMath.contextBytes(s, 2, 32 * 1024)).isEqualTo(5.0 * 1024 * 1024 * 1024);
        // 192 GB host, 10 GB OS, ~8 GB weights, 2 GB runtime, x0.8: far more than 131072 tokens fit.
        long safe = KvCacheMath.safeMaxTokens(192_000_000_000L, 8_000_000_000L, 10_000_000_000L, 2_000_000_000L, 0.8,
                (long) perToken);
        assertThat(safe).isGreaterThan(131072L).isBetween(800_000L, 900_000L);
    }

    @Test
    void perLayerArraysAndExplicitHeadSizes() throws Exception {
        ModelShape s = ModelShape.fromModelInfo(json("""
                {"general.architecture":"gemma3","gemma3.block_count":4,"gemma3.attention.head_count":[8,8,8,8],
                 "gemma3.attention.head_count_kv":[4,0,4,2],"gemma3.embedding_length":2560,
                 "gemma3.attention.key_length":256,"gemma3.attention.value_length":128}"""));
        assertThat(KvCacheMath.bytesPerToken(s, 1)).isEqualTo((256 + 128) * (4 + 0 + 4 + 2));
        assertThat(s.contextLength()).isNull();
    }

    @Test
    void missingOrInconsistentKeysAreNamed() throws Exception {
        assertThatThrownBy(() -> ModelShape.fromModelInfo(json("{}"))).hasMessageContaining("general.architecture");
        assertThatThrownBy(() -> ModelShape.fromModelInfo(json("{\"general.architecture\":\"x\"}")))
                .hasMessageContaining("x.block_count");
        assertThatThrownBy(() -> ModelShape.fromModelInfo(json("""
                {"general.architecture":"x","x.block_count":2,"x.attention.head_count":[1,2,3],"x.embedding_length":8}""")))
                .hasMessageContaining("x.attention.head_count has 3 entries for 2 layers");
        assertThatThrownBy(() -> KvCacheMath.bytesPerElement("q5_9")).hasMessageContaining("q5_9");
    }

    @Test
    void headroomIsAvailableMemoryOverBytesPerToken() {
        assertThat(KvCacheMath.headroomTokens(131072, 16.0 * (1L << 30))).isEqualTo(131072L);
        assertThat(KvCacheMath.headroomTokens(131072, -5)).isZero();
    }
}
