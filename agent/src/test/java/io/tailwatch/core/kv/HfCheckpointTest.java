package io.tailwatch.core.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real config.json files of several families (fixtures/hf-configs/README.md names their sources). */
class HfCheckpointTest {
    static final Path FIXTURES = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "hf-configs");

    @TempDir
    Path tmp;

    static HfCheckpoint fixture(String name) throws Exception {
        return HfCheckpoint.parse(new ObjectMapper().readTree(FIXTURES.resolve(name).toFile()), name, null);
    }

    static long perToken(HfCheckpoint c) {
        return KvCacheMath.windowedContextBytes(1, KvCacheMath.bytesPerToken(1, c.kvHeads(), c.headDim(), c.dtypeBytes()),
                c.windows(), c.otherLayers());
    }

    @Test
    void llama_3_1_8b_derives_the_head_size_from_hidden_size() throws Exception {
        HfCheckpoint c = fixture("llama-3.1-8b.json");
        assertThat(c.layers()).isEqualTo(32);
        assertThat(c.kvHeads()).isEqualTo(8);
        assertThat(c.headDim()).isEqualTo(4096 / 32);
        assertThat(c.dtypeBytes()).isEqualTo(2.0);
        assertThat(c.mixed()).isFalse();
        // 32 layers x 2 x 8 heads x 128 x 2 B = 128 KiB, the Llama-3-8B figure of docs/capacity.md.
        assertThat(perToken(c)).isEqualTo(128 * 1024);
        assertThat(c.contextLength()).isEqualTo(131072);
    }

    @Test
    void llama_3_2_and_qwen_3_state_head_dim() throws Exception {
        assertThat(perToken(fixture("llama-3.2-1b-instruct.json"))).isEqualTo(16L * 2 * 8 * 64 * 2);
        HfCheckpoint q = fixture("qwen3-8b.json");
        assertThat(q.headDim()).isEqualTo(128);
        assertThat(perToken(q)).isEqualTo(36L * 2 * 8 * 128 * 2);
        assertThat(q.mixed()).isFalse();
    }

    @Test
    void qwen_2_5_sliding_window_switched_off_is_full_attention() throws Exception {
        HfCheckpoint c = fixture("qwen2.5-14b.json");
        assertThat(c.windows()).hasSize(48).containsOnly(0);
        assertThat(c.mixed()).isFalse();
        assertThat(perToken(c)).isEqualTo(48L * 2 * 8 * (5120 / 40) * 2);
    }

    @Test
    void qwen_with_sliding_window_on_slides_from_max_window_layers() throws Exception {
        ObjectNode cfg = (ObjectNode) new ObjectMapper().readTree(FIXTURES.resolve("qwen2.5-14b.json").toFile());
        cfg.put("use_sliding_window", true);
        cfg.put("max_window_layers", 40);
        cfg.put("sliding_window", 4096);
        HfCheckpoint c = HfCheckpoint.parse(cfg, "x", null);
        assertThat(c.slidingLayers()).isEqualTo(8);
        assertThat(c.windows().subList(0, 40)).containsOnly(0);
        assertThat(c.windows().subList(40, 48)).containsOnly(4096);
    }

    @Test
    void gemma_2_alternates_sliding_and_full_layers() throws Exception {
        HfCheckpoint c = fixture("gemma-2-9b-it.json");
        assertThat(c.layers()).isEqualTo(42);
        assertThat(c.windows().get(0)).isEqualTo(4096);
        assertThat(c.windows().get(1)).isZero();
        assertThat(c.slidingLayers()).isEqualTo(21);
        assertThat(c.fullLayers()).isEqualTo(21);
        long layer = 2L * 8 * 256 * 2; // 8 KiB per layer per token
        // 8192 tokens: 21 full layers hold all of them, 21 sliding layers 4096 each.
        assertThat(KvCacheMath.windowedContextBytes(8192, layer, c.windows(), c.otherLayers()))
                .isEqualTo((21L * 8192 + 21L * 4096) * layer);
        // Within the window every layer counts.
        assertThat(KvCacheMath.windowedContextBytes(1000, layer, c.windows(), c.otherLayers())).isEqualTo(42L * 1000 * layer);
    }

    @Test
    void gemma_3_reads_layer_types() throws Exception {
        HfCheckpoint c = fixture("gemma-3-270m.json");
        assertThat(c.layers()).isEqualTo(18);
        assertThat(c.slidingLayers()).isEqualTo(15);
        assertThat(c.fullLayers()).isEqualTo(3);
        assertThat(c.windows().get(5)).isZero();
        assertThat(c.windows().get(0)).isEqualTo(512);
        long layer = 2L * 1 * 256 * 2;
        assertThat(KvCacheMath.windowedContextBytes(32768, layer, c.windows(), c.otherLayers()))
                .isEqualTo((3L * 32768 + 15L * 512) * layer);
        // Without layer_types the sliding_window_pattern (6) gives the same layout.
        ObjectNode cfg = (ObjectNode) new ObjectMapper().readTree(FIXTURES.resolve("gemma-3-270m.json").toFile());
        cfg.remove("layer_types");
        assertThat(HfCheckpoint.parse(cfg, "x", null).windows()).isEqualTo(c.windows());
    }

    @Test
    void mistral_nemo_without_a_window_is_full_and_a_windowed_mistral_slides_everywhere() throws Exception {
        HfCheckpoint c = fixture("mistral-nemo-base-2407.json");
        assertThat(c.mixed()).isFalse();
        assertThat(perToken(c)).isEqualTo(40L * 2 * 8 * 128 * 2);
        ObjectNode cfg = (ObjectNode) new ObjectMapper().readTree(FIXTURES.resolve("mistral-nemo-base-2407.json").toFile());
        cfg.put("sliding_window", 4096);
        HfCheckpoint w = HfCheckpoint.parse(cfg, "x", null);
        assertThat(w.windows()).containsOnly(4096);
        assertThat(w.fullLayers()).isZero();
        // The cache stops growing: any budget above 40 x 4096 tokens' worth has no token limit.
        long layer = 2L * 8 * 128 * 2;
        assertThat(KvCacheMath.windowedSafeMaxTokens(40L * 4096 * layer, layer, w.windows(), w.otherLayers())).isEqualTo(-1);
        assertThat(KvCacheMath.windowedSafeMaxTokens(40L * 4096 * layer - 1, layer, w.windows(), w.otherLayers()))
                .isEqualTo(4095);
    }

    @Test
    void windowed_safe_maximum_counts_the_saturated_windows_once() throws Exception {
        HfCheckpoint c = fixture("gemma-3-270m.json");
        long layer = 1024;
        long budget = KvCacheMath.budgetBytes(16L << 30, 1L << 30, 10L << 30, 2L << 30, 0.8);
        assertThat(budget).isEqualTo(2_576_980_377L); // floor(3 GiB x 0.8)
        // 15 sliding layers hold 512 tokens each; the rest of the budget goes 3 KiB per token.
        long expected = 512 + (budget - 18L * 512 * layer) / (3 * layer);
        assertThat(KvCacheMath.windowedSafeMaxTokens(budget, layer, c.windows(), c.otherLayers())).isEqualTo(expected)
                .isEqualTo(836_300L);
        // Full attention everywhere: the plain division.
        List<Integer> full = Collections.nCopies(32, 0);
        assertThat(KvCacheMath.windowedSafeMaxTokens(budget, 4096, full, List.of())).isEqualTo(budget / (32 * 4096));
    }

    @Test
    void mlx_quantization_is_reported_and_weights_come_from_safetensors_in_the_hub_cache() throws Exception {
        Path hub = tmp.resolve("hf").resolve("hub");
        Path repo = hub.resolve("models--mlx-community--Llama-3.2-1B-Instruct-4bit");
        Path snap = repo.resolve("snapshots").resolve("0123abcd");
        Files.createDirectories(snap);
        Files.createDirectories(repo.resolve("blobs"));
        Files.createDirectories(repo.resolve("refs"));
        Files.writeString(repo.resolve("refs").resolve("main"), "0123abcd\n");
        ObjectNode cfg = (ObjectNode) new ObjectMapper().readTree(FIXTURES.resolve("llama-3.2-1b-instruct.json").toFile());
        cfg.putObject("quantization").put("group_size", 64).put("bits", 4);
        Files.writeString(snap.resolve("config.json"), cfg.toString());
        Path blob = repo.resolve("blobs").resolve("deadbeef");
        Files.write(blob, new byte[12_345]);
        Files.createSymbolicLink(snap.resolve("model.safetensors"), Path.of("../../blobs/deadbeef"));
        Files.write(snap.resolve("model-extra.safetensors"), new byte[655]);

        Path found = HfCheckpoint.locate("mlx-community/Llama-3.2-1B-Instruct-4bit", Map.of("HF_HOME", tmp.resolve("hf").toString()));
        assertThat(found).isEqualTo(snap);
        HfCheckpoint c = HfCheckpoint.read(found);
        assertThat(c.quantization()).isEqualTo("4 bit, group 64");
        assertThat(c.weightsBytes()).isEqualTo(13_000L);
        assertThat(HfCheckpoint.locate("mlx-community/Llama-3.2-1B-Instruct-4bit", Map.of("HF_HUB_CACHE", hub.toString())))
                .isEqualTo(snap);
        assertThatThrownBy(() -> HfCheckpoint.locate("mlx-community/Missing", Map.of("HF_HOME", tmp.resolve("hf").toString())))
                .hasMessageContaining("not in the Hugging Face cache").hasMessageContaining("models--mlx-community--Missing");
    }

    @Test
    void a_config_without_the_shape_names_the_missing_key() {
        ObjectNode cfg = new ObjectMapper().createObjectNode().put("model_type", "llama").put("num_attention_heads", 8);
        assertThatThrownBy(() -> HfCheckpoint.parse(cfg, "config.json", null))
                .hasMessage("config.json: num_hidden_layers is missing");
    }
}
