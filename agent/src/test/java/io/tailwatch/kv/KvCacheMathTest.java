package io.tailwatch.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvCacheMathTest {
    private static final long GB = 1_000_000_000L;

    @Test
    void qwen3_14b_fp16_takes_160_kib_per_token() {
        // 40 layers x 8 KV heads x head_dim 128 x 2 bytes x 2 (K and V)
        long perToken = KvCacheMath.bytesPerToken(40, 8, 128, 2);
        assertThat(perToken).isEqualTo(160 * 1024);
        assertThat(perToken / 40).isEqualTo(4 * 1024);
        assertThat(4096 * perToken).isEqualTo(640L * 1024 * 1024);
    }

    @Test
    void safe_size_leaves_os_weights_runtime_and_a_margin() {
        long perToken = KvCacheMath.bytesPerToken(40, 8, 128, 2);
        // 192 GB host, 10 GB OS, 10 GB weights, 2 GB runtime: 170 GB x 0.8 = 136 GB for the cache
        long tokens = KvCacheMath.safeMaxTokens(192 * GB, 10 * GB, 10 * GB, 2 * GB, 0.8, perToken);
        assertThat(tokens).isEqualTo((long) Math.floor(136e9 / 163840));
        assertThat(tokens).isBetween(800_000L, 900_000L).isGreaterThan(131_072L);
    }

    @Test
    void eight_bit_cache_halves_the_bytes() {
        assertThat(KvCacheMath.bytesPerToken(40, 8, 128, 1)).isEqualTo(KvCacheMath.bytesPerToken(40, 8, 128, 2) / 2);
    }

    @Test
    void no_room_and_bad_inputs_are_errors_naming_the_value() {
        assertThatThrownBy(() -> KvCacheMath.safeMaxTokens(16 * GB, 8 * GB, 10 * GB, 2 * GB, 0.8, 1000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no memory left");
        assertThatThrownBy(() -> KvCacheMath.bytesPerToken(0, 8, 128, 2)).hasMessageContaining("layers");
        assertThatThrownBy(() -> KvCacheMath.bytesPerToken(40, 8, 128, 0)).hasMessageContaining("bytes per element");
        assertThatThrownBy(() -> KvCacheMath.safeMaxTokens(192 * GB, GB, GB, GB, 1.5, 1000)).hasMessageContaining("safety");
    }
}
