package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class KvBudgetCommandTest {
    static final Path FIXTURES = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "hf-configs");

    @TempDir
    Path tmp;

    HistoryCommandTest.Run run(Map<String, String> env, String... args) {
        KvBudgetCommand cmd = new KvBudgetCommand();
        cmd.env = env;
        return HistoryCommandTest.run(new CommandLine(cmd), args);
    }

    /** An MLX checkpoint in a Hugging Face cache under {@code tmp/hf}: Gemma 3 270M's config, 500 MiB of weights. */
    Map<String, String> cache() throws Exception {
        Path snap = tmp.resolve("hf/hub/models--mlx-community--gemma-3-270m-bf16/snapshots/abc");
        Files.createDirectories(snap);
        Files.copy(FIXTURES.resolve("gemma-3-270m.json"), snap.resolve("config.json"));
        try (var f = new java.io.RandomAccessFile(snap.resolve("model.safetensors").toFile(), "rw")) {
            f.setLength(500L << 20);
        }
        return Map.of("HF_HOME", tmp.resolve("hf").toString());
    }

    @Test
    void a_model_id_from_the_cache_is_sized_with_its_windows_and_its_weights() throws Exception {
        HistoryCommandTest.Run r = run(cache(), "--model", "mlx-community/gemma-3-270m-bf16", "--memory", "16GiB",
                "--context", "256,32768", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        // Per layer 1 KV head x 256 x 2 (K, V) x 2 B (bfloat16) = 1 KiB; 18 layers, 3 of them full attention.
        assertThat(j.get("bytes_per_token").asLong()).isEqualTo(18 * 1024);
        assertThat(j.get("bytes_per_token_beyond_windows").asLong()).isEqualTo(3 * 1024);
        assertThat(j.get("estimate").asBoolean()).isTrue();
        assertThat(j.get("contexts").get(0).get("bytes").asLong()).isEqualTo(256L * 18 * 1024);
        assertThat(j.get("contexts").get(1).get("bytes").asLong()).isEqualTo((3L * 32768 + 15L * 512) * 1024);
        assertThat(j.get("contexts").get(1).get("bytes_if_every_layer_keeps_all").asLong()).isEqualTo(32768L * 18 * 1024);
        assertThat(j.get("weights_bytes").asLong()).isEqualTo(500L << 20);
        long budget = (long) Math.floor(((16L << 30) - (10L << 30) - (500L << 20) - (2L << 30)) * 0.8);
        assertThat(j.get("safe_max_tokens").asLong()).isEqualTo(512 + (budget - 18L * 512 * 1024) / (3 * 1024));
        assertThat(j.get("model_context_length").asLong()).isEqualTo(32768);
    }

    @Test
    void the_text_says_the_figures_are_an_estimate_and_why() throws Exception {
        HistoryCommandTest.Run r = run(cache(), "--model", "mlx-community/gemma-3-270m-bf16", "--memory", "16GiB",
                "--context", "32768");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("18 layers (15 with a 512-token sliding window, 3 full)")
                .contains("estimate: 15 of 18 layers keep only a sliding window")
                .contains("(every layer in full: 576.00 MiB)")
                .contains("500.00 MiB (the checkpoint's safetensors files) weights")
                .contains("max_position_embeddings");
    }

    @Test
    void a_full_attention_checkpoint_keeps_the_old_fields_and_no_estimate() throws Exception {
        Path dir = tmp.resolve("llama");
        Files.createDirectories(dir);
        Files.copy(FIXTURES.resolve("llama-3.1-8b.json"), dir.resolve("config.json"));
        HistoryCommandTest.Run r = run(Map.of(), "--model", dir.toString(), "--memory", "64GiB", "--weights", "16GiB", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("bytes_per_token").asLong()).isEqualTo(131072);
        assertThat(j.get("estimate").asBoolean()).isFalse();
        assertThat(j.get("contexts").get(2).get("tokens").asLong()).isEqualTo(131072);
        assertThat(j.get("contexts").get(2).get("bytes").asLong()).isEqualTo(16L << 30);
        assertThat(j.get("contexts").get(2).has("bytes_if_every_layer_keeps_all")).isFalse();
        // (64 - 10 - 16 - 2) GiB x 0.8 / 128 KiB
        assertThat(j.get("safe_max_tokens").asLong()).isEqualTo(235_929L);
    }

    @Test
    void an_unknown_model_id_is_a_usage_error_naming_where_it_looked() {
        HistoryCommandTest.Run r = run(Map.of("HF_HOME", tmp.toString()), "--model", "nobody/nothing");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("not in the Hugging Face cache").contains("models--nobody--nothing");
    }

    static final String[] SEED = {"--layers", "40", "--kv-heads", "8", "--head-dim", "128", "--bytes-per-element", "2",
            "--memory", "192GiB", "--weights", "10GiB"};

    static String[] with(String[] base, String... more) {
        String[] out = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, out, base.length, more.length);
        return out;
    }

    @Test
    void the_seed_example_holds_without_a_limit_and_with_one_that_does_not_bind() throws Exception {
        for (String limit : new String[] {"none", "186368MiB"}) {
            HistoryCommandTest.Run r = run(Map.of(), with(SEED, "--gpu-limit", limit, "--json"));
            assertThat(r.code()).as(r.err()).isZero();
            JsonNode j = new ObjectMapper().readTree(r.out());
            assertThat(j.get("safe_max_tokens").asLong()).isEqualTo(891_289L);
            assertThat(j.get("binding").asText()).isEqualTo("memory");
        }
        // 186368 MiB = 182 GiB: (182 - 10 - 2) x 0.8 = 136 GiB, the same budget as (192 - 10 - 10 - 2) x 0.8
        JsonNode j = new ObjectMapper().readTree(run(Map.of(), with(SEED, "--gpu-limit", "186368MiB", "--json")).out());
        assertThat(j.get("ceilings").get(1).get("budget_bytes").asLong()).isEqualTo(136L << 30);
    }

    @Test
    void the_seed_host_at_its_default_144_gib_limit_is_bound_by_the_gpu() throws Exception {
        HistoryCommandTest.Run r = run(Map.of(), with(SEED, "--gpu-limit", "144GiB"));
        assertThat(r.code()).as(r.err()).isZero();
        // memory 891,289; GPU (144 - 10 - 2) GiB x 0.8 = 105.6 GiB / 160 KiB = 692,060
        assertThat(r.out()).contains("total memory:          (192GiB - 10GiB OS - 10GiB weights - 2GiB runtime) x 0.8 = 136.00 GiB of KV cache, 891289 tokens")
                .contains("GPU working-set limit: (144GiB GPU limit - 10GiB weights - 2GiB runtime) x 0.8 = 105.60 GiB of KV cache, 692060 tokens")
                .contains("binds: the GPU working-set limit (30.40 GiB less for the KV cache than the total memory)")
                .contains("safe max KV tokens: 692060 = largest context whose KV cache fits (144GiB GPU limit")
                .contains("use --max-kv-size 692060 or less");
    }

    @Test
    void a_128_gib_m5_max_with_its_107_52_gib_limit() throws Exception {
        HistoryCommandTest.Run r = run(Map.of(), "--layers", "40", "--kv-heads", "8", "--head-dim", "128", "--memory",
                "128GiB", "--weights", "10GiB", "--gpu-limit", "107.52GiB", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("gpu_limit_bytes").asLong()).isEqualTo(115_448_720_916L);
        assertThat(j.get("ceilings").get(0).get("kind").asText()).isEqualTo("memory");
        // (128 - 22) GiB x 0.8 = 84.8 GiB -> 555,745 tokens; (107.52 - 12) GiB x 0.8 = 76.416 GiB -> 500,799
        assertThat(j.get("ceilings").get(0).get("safe_max_tokens").asLong()).isEqualTo(555_745L);
        assertThat(j.get("ceilings").get(1).get("kind").asText()).isEqualTo("gpu_limit");
        assertThat(j.get("ceilings").get(1).get("safe_max_tokens").asLong()).isEqualTo(500_799L);
        assertThat(j.get("binding").asText()).isEqualTo("gpu_limit");
        assertThat(j.get("safe_max_tokens").asLong()).isEqualTo(500_799L);
    }

    @Test
    void a_bad_gpu_limit_is_a_usage_error_naming_the_option() {
        HistoryCommandTest.Run r = run(Map.of(), with(SEED, "--gpu-limit", "lots"));
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--gpu-limit");
    }

    @Test
    void theEnginesGraphicsMemoryIsShownBesideTheLimit() {
        // 90 GiB held of a 96 GiB limit: 93.75 %, printed rounded.
        String line = KvBudgetCommand.enginesGpuLine(90.0 * (1L << 30), 96L << 30);
        org.assertj.core.api.Assertions.assertThat(line).startsWith("GPU memory the engines hold now: ")
                .contains(io.tailwatch.core.units.Units.formatBytes(90.0 * (1L << 30)))
                .contains(io.tailwatch.core.units.Units.formatBytes(96L << 30)).endsWith("(94 %)");
        // No graphics figure (Linux, or no engine readable): no line at all, never 0 B.
        org.assertj.core.api.Assertions.assertThat(KvBudgetCommand.enginesGpuLine(null, 96L << 30)).isNull();
        // No limit: the figure alone.
        org.assertj.core.api.Assertions.assertThat(KvBudgetCommand.enginesGpuLine(1024.0, null)).doesNotContain("limit");
    }
}
