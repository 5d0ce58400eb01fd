package io.tailwatch.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvPlanTest {
    static final long GIB = 1L << 30;
    /** Qwen3-14B: 40 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 160 KiB per token. */
    static final KvPlan.Sizing QWEN3_14B = KvPlan.explicit(40, 8, 128, 2);

    static KvPlan plan(Long memory, Long gpuLimit) {
        return new KvPlan(QWEN3_14B, memory, 10 * GIB, gpuLimit, 10 * GIB, 2 * GIB, 0.8);
    }

    @Test
    void the_seed_example_is_bound_by_memory_without_a_limit() {
        KvPlan p = plan(192 * GIB, null);
        assertThat(QWEN3_14B.bytesPerToken()).isEqualTo(163_840);
        assertThat(p.gpuCeiling()).isNull();
        // (192 - 10 - 10 - 2) GiB x 0.8 = 136 GiB; 136 GiB / 160 KiB = 891,289.6
        assertThat(p.binding().kind()).isEqualTo(KvPlan.CeilingKind.MEMORY);
        assertThat(p.binding().safeMaxTokens()).isEqualTo(891_289);
    }

    @Test
    void a_192_gib_mac_at_its_default_limit_is_bound_by_the_gpu() {
        // Metal's default on the larger Macs is about 3/4 of memory: 144 GiB of 192 GiB.
        KvPlan p = plan(192 * GIB, 144 * GIB);
        // (144 - 10 - 2) GiB x 0.8 = 105.6 GiB; / 160 KiB = 105.6 x 6553.6 = 692,060.16
        assertThat(p.gpuCeiling().safeMaxTokens()).isEqualTo(692_060);
        assertThat(p.memoryCeiling().safeMaxTokens()).isEqualTo(891_289);
        assertThat(p.binding().kind()).isEqualTo(KvPlan.CeilingKind.GPU_LIMIT);
    }

    @Test
    void a_limit_raised_to_182_gib_ties_and_the_seed_figure_holds() {
        // (182 - 12) GiB = (192 - 22) GiB: the same budget; a tie is reported as total memory.
        KvPlan p = plan(192 * GIB, 182 * GIB);
        assertThat(p.gpuCeiling().budgetBytes()).isEqualTo(p.memoryCeiling().budgetBytes());
        assertThat(p.binding().kind()).isEqualTo(KvPlan.CeilingKind.MEMORY);
        assertThat(p.binding().safeMaxTokens()).isEqualTo(891_289);
    }

    @Test
    void a_128_gib_m5_max_is_bound_by_its_107_52_gib_limit() {
        long limit = Math.round(107.52 * GIB); // 115,448,720,916 bytes
        KvPlan p = plan(128 * GIB, limit);
        // memory: (128 - 22) GiB x 0.8 = 84.8 GiB -> 84.8 x 6553.6 = 555,745.28 tokens
        assertThat(p.memoryCeiling().safeMaxTokens()).isEqualTo(555_745);
        // GPU: (107.52 - 12) GiB x 0.8 = 76.416 GiB -> 76.416 x 6553.6 = 500,799.9 tokens
        assertThat(p.gpuCeiling().budgetBytes()).isEqualTo(82_051_055_222L);
        assertThat(p.gpuCeiling().safeMaxTokens()).isEqualTo(500_799);
        assertThat(p.binding()).isEqualTo(p.ceilings().get(1));
        assertThat(p.binding().kind()).isEqualTo(KvPlan.CeilingKind.GPU_LIMIT);
    }

    @Test
    void unknown_weights_leave_no_ceiling_and_a_bad_limit_is_refused() {
        assertThat(new KvPlan(QWEN3_14B, 64 * GIB, null, 48 * GIB, 10 * GIB, 2 * GIB, 0.8).binding()).isNull();
        assertThatThrownBy(() -> plan(64 * GIB, 0L)).hasMessageContaining("GPU limit");
    }

    @Test
    void a_running_model_near_the_limit_has_its_share_and_the_tighter_headroom() {
        // 100 GiB footprint (weights and runtime) + 32,768 tokens x 160 KiB = 5 GiB of KV, limit 107.52 GiB.
        double limit = 107.52 * GIB;
        KvPlan.Headroom h = KvPlan.headroom(163_840.0, 100.0 * GIB, false, 32_768L, limit, 20.0 * GIB);
        assertThat(h.kvContextBytes()).isEqualTo(5.0 * GIB);
        assertThat(h.usedBytes()).isEqualTo(105.0 * GIB);
        assertThat(h.gpuShare()).isCloseTo(105 / 107.52, org.assertj.core.data.Offset.offset(1e-12));
        // GPU left: 2.52 GiB = 2.52 x 6553.6 = 16,515.07 tokens; 20 GiB available would give 131,072.
        assertThat(h.bound()).isEqualTo(KvPlan.CeilingKind.GPU_LIMIT);
        assertThat(h.headroomTokens()).isEqualTo(16_515);
    }

    @Test
    void a_footprint_that_holds_its_context_is_not_counted_twice_and_memory_can_bind() {
        // Ollama's size already holds the context's KV: used = footprint.
        KvPlan.Headroom h = KvPlan.headroom(163_840.0, 40.0 * GIB, true, 32_768L, 96.0 * GIB, 8.0 * GIB);
        assertThat(h.usedBytes()).isEqualTo(40.0 * GIB);
        assertThat(h.gpuShare()).isCloseTo(40 / 96.0, org.assertj.core.data.Offset.offset(1e-12));
        // 8 GiB available < 56 GiB left under the limit: memory binds, 8 x 6553.6 = 52,428.8 tokens.
        assertThat(h.bound()).isEqualTo(KvPlan.CeilingKind.MEMORY);
        assertThat(h.headroomTokens()).isEqualTo(52_428);
    }

    @Test
    void without_a_limit_there_is_no_share_and_linux_keeps_the_memory_headroom() {
        KvPlan.Headroom h = KvPlan.headroom(163_840.0, 40.0 * GIB, false, 4096L, null, 8.0 * GIB);
        assertThat(h.gpuShare()).isNull();
        assertThat(h.gpuLeftBytes()).isNull();
        assertThat(h.headroomTokens()).isEqualTo(52_428);
        assertThat(KvPlan.headroom(null, 40.0 * GIB, false, 4096L, 96.0 * GIB, 8.0 * GIB).headroomTokens()).isNull();
    }
}
