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
}
