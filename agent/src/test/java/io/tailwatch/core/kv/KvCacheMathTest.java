package io.tailwatch.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvCacheMathTest {
    private static final long GIB = 1L << 30;

    @Test
    void qwen3_14b_fp16_is_160_kib_per_token() {
        long perToken = KvCacheMath.bytesPerToken(40, 8, 128, 2.0);
        assertThat(perToken).isEqualTo(163_840L).isEqualTo(160 * 1024L);
        // 4 KiB per layer per token
        assertThat(KvCacheMath.bytesPerToken(1, 8, 128, 2.0)).isEqualTo(4096L);
    }

    @Test
    void per_layer_form_agrees_with_the_uniform_form() {
        int[] heads = new int[40];
        java.util.Arrays.fill(heads, 8);
        assertThat(KvCacheMath.bytesPerToken(heads, 128, 128, 2.0)).isEqualTo(KvCacheMath.bytesPerToken(40, 8, 128, 2.0));
    }

    @Test
    void engines_example_is_128_kib() {
        // 32 layers x (128 + 128) x 8 KV heads x 2 B
        int[] heads = new int[32];
        java.util.Arrays.fill(heads, 8);
        assertThat(KvCacheMath.bytesPerToken(heads, 128, 128, 2.0)).isEqualTo(128 * 1024L);
    }

    @Test
    void per_layer_heads_are_summed_and_zero_head_layers_cost_nothing() {
        assertThat(KvCacheMath.bytesPerToken(new int[]{8, 0, 4, 0}, 64, 32, 1.0)).isEqualTo((8 + 4) * (64 + 32));
    }

    @Test
    void context_sizes_match_the_worked_example() {
        long perToken = KvCacheMath.bytesPerToken(40, 8, 128, 2.0);
        assertThat(KvCacheMath.contextBytes(4096, perToken)).isEqualTo(640L * 1024 * 1024);
        assertThat(KvCacheMath.contextBytes(32768, perToken)).isEqualTo(5120L * 1024 * 1024);
        assertThat(KvCacheMath.contextBytes(131072, perToken)).isEqualTo(20480L * 1024 * 1024);
    }

    @Test
    void safe_max_tokens_on_a_192_gib_host() {
        long perToken = KvCacheMath.bytesPerToken(40, 8, 128, 2.0);
        assertThat(KvCacheMath.safeMaxTokens(192 * GIB, 10 * GIB, 10 * GIB, 2 * GIB, 0.8, perToken))
                .isEqualTo(891_289L)
                .isGreaterThan(131_072L);
    }

    @Test
    void safe_max_tokens_is_zero_when_nothing_is_left() {
        assertThat(KvCacheMath.safeMaxTokens(16 * GIB, 10 * GIB, 10 * GIB, 2 * GIB, 0.8, 163_840)).isZero();
    }

    @Test
    void cache_types() {
        assertThat(KvCacheMath.bytesPerElement("f16")).isEqualTo(2.0);
        assertThat(KvCacheMath.bytesPerElement("Q8_0")).isEqualTo(1.0);
        assertThat(KvCacheMath.bytesPerElement("q4_0")).isEqualTo(0.5);
        assertThat(KvCacheMath.bytesPerElement("f32")).isEqualTo(4.0);
        assertThat(KvCacheMath.bytesPerToken(40, 8, 128, KvCacheMath.bytesPerElement("q4_0"))).isEqualTo(40_960L);
        assertThatThrownBy(() -> KvCacheMath.bytesPerElement("q5_1")).hasMessageContaining("q5_1");
    }

    @Test
    void bad_input_names_the_field() {
        assertThatThrownBy(() -> KvCacheMath.bytesPerToken(0, 8, 128, 2)).hasMessageContaining("layers");
        assertThatThrownBy(() -> KvCacheMath.bytesPerToken(new int[]{8, -1}, 128, 128, 2))
                .hasMessageContaining("kvHeadsPerLayer[1]");
        assertThatThrownBy(() -> KvCacheMath.safeMaxTokens(GIB, 0, 0, 0, 1.5, 10)).hasMessageContaining("safety");
        assertThatThrownBy(() -> KvCacheMath.contextBytes(-1, 10)).hasMessageContaining("tokens");
    }
}
