package io.tailwatch.core.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which figure sizes each input and where it came from; the plan's arithmetic itself is KvPlanTest's. */
class KvBudgetTest {
    static final long GIB = 1L << 30;
    /** 40 layers x 8 KV heads x 128 x 2 x 2 B = 160 KiB per token. */
    static final KvPlan.Sizing SIZING = KvPlan.explicit(40, 8, 128, 2);

    static KvBudget.Facts facts(EngineReport engine, Long weights, Long memory, Long hostMemory, Long gpuLimit, boolean none,
                                Long hostGpuLimit) {
        return new KvBudget.Facts(SIZING, List.of(4096L, 32768L), null, engine, weights, memory, hostMemory, gpuLimit, none,
                hostGpuLimit, 10 * GIB, 2 * GIB, 0.8);
    }

    @Test
    void the_hosts_gpu_limit_is_used_only_beside_the_hosts_own_memory() {
        KvBudget host = KvBudget.of(facts(null, 10 * GIB, null, 128 * GIB, null, false, 96 * GIB));
        assertThat(host.memoryBytes()).isEqualTo(128 * GIB);
        assertThat(host.memorySource()).isEqualTo(KvBudget.HOST_MEMORY);
        assertThat(host.gpuLimitBytes()).isEqualTo(96 * GIB);
        assertThat(host.gpuLimitSource()).isEqualTo(KvBudget.HOST_GPU_LIMIT);
        // (96 - 10 - 2) GiB x 0.8 = 67.2 GiB / 160 KiB = 440,401 tokens; memory gives (128 - 22) x 0.8 = 84.8 GiB
        assertThat(host.plan().binding().kind()).isEqualTo(KvPlan.CeilingKind.GPU_LIMIT);
        assertThat(host.safeMaxTokens()).isEqualTo(440_401L);

        KvBudget other = KvBudget.of(facts(null, 10 * GIB, 192 * GIB, null, null, false, 96 * GIB));
        assertThat(other.gpuLimitBytes()).as("this Mac's limit beside another machine's --memory").isNull();
        assertThat(other.memorySource()).isNull();
        KvBudget none = KvBudget.of(facts(null, 10 * GIB, null, 128 * GIB, null, true, 96 * GIB));
        assertThat(none.gpuLimitBytes()).as("--gpu-limit none").isNull();
        KvBudget given = KvBudget.of(facts(null, 10 * GIB, null, 128 * GIB, 100 * GIB, false, 96 * GIB));
        assertThat(given.gpuLimitBytes()).isEqualTo(100 * GIB);
        assertThat(given.gpuLimitSource()).isNull();
    }

    @Test
    void the_engines_report_sets_weights_and_trained_context_and_adds_its_served_context() {
        EngineReport r = new EngineReport("/m.gguf", 8192L, null, 4, 131072L, 5 * GIB, List.of());
        KvBudget b = KvBudget.of(facts(r, null, 64 * GIB, null, null, false, null));
        assertThat(b.weightsBytes()).isEqualTo(5 * GIB);
        assertThat(b.weightsSource()).isEqualTo(KvBudget.ENGINE_WEIGHTS);
        assertThat(b.modelContext()).isEqualTo(131072L);
        assertThat(b.modelContextSource()).isEqualTo("n_ctx_train");
        // 8192 per slot x 4 slots, derived
        assertThat(r.servedContext()).isEqualTo(32768L);
        assertThat(r.servedContextDerived()).isTrue();
        assertThat(b.contexts()).containsExactly(4096L, 32768L);
        EngineReport one = new EngineReport(null, 10000L, null, null, null, null, List.of("no /v1/models"));
        assertThat(KvBudget.of(facts(one, 1L, 64 * GIB, null, null, false, null)).contexts()).containsExactly(4096L, 10000L, 32768L);
        // --weights wins over the engine's figure and has no source to name
        KvBudget w = KvBudget.of(facts(r, 7 * GIB, 64 * GIB, null, null, false, null));
        assertThat(w.weightsBytes()).isEqualTo(7 * GIB);
        assertThat(w.weightsSource()).isNull();
    }

    @Test
    void unknown_memory_and_weights_give_no_safe_maximum_not_zero() {
        KvBudget b = KvBudget.of(facts(null, null, null, null, null, false, null));
        assertThat(b.plan().binding()).isNull();
        assertThat(b.safeMaxTokens()).isNull();
        assertThat(b.unlimited()).isFalse();
    }

    @Test
    void the_element_size_follows_the_options_then_the_checkpoint_then_f16() {
        assertThat(KvBudget.ElementSize.choose(1.0, null, null, false)).isEqualTo(new KvBudget.ElementSize(1.0, ""));
        assertThat(KvBudget.ElementSize.choose(null, "q4_0", null, false).bytes()).isEqualTo(0.5);
        assertThat(KvBudget.ElementSize.choose(null, null, null, false)).isEqualTo(new KvBudget.ElementSize(2.0, ""));
        assertThat(KvBudget.ElementSize.choose(null, null, null, true).source()).contains("llama.cpp's default f16 cache");
    }
}
