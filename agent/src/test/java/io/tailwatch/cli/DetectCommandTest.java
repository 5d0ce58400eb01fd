package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** tailwatch detect against the engine simulator, one flavour per loopback port the test picked. */
class DetectCommandTest {
    final List<EngineSimulator> sims = new ArrayList<>();

    EngineSimulator sim(String api, String flavor, String model) throws Exception {
        EngineSimulator s = EngineSimulator.start(api, flavor, "127.0.0.1", 0, SimulatorOptions.defaults(api).withModel(model));
        sims.add(s);
        return s;
    }

    @AfterEach
    void stop() {
        sims.forEach(EngineSimulator::close);
    }

    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void table_columns_line_up_by_display_width_and_long_model_lists_are_cut_whole() {
        java.net.URI u = java.net.URI.create("http://127.0.0.1:1");
        List<io.tailwatch.daemon.engine.EngineDiscovery.Found> found = List.of(
                new io.tailwatch.daemon.engine.EngineDiscovery.Found(11434, u, io.tailwatch.core.probe.EngineFlavor.OLLAMA,
                        "answers", null, List.of("通义千问:7b", "🦙llama3")),
                new io.tailwatch.daemon.engine.EngineDiscovery.Found(8080, u, io.tailwatch.core.probe.EngineFlavor.OPENAI,
                        "answers", null, List.of("qwe\u0301n")),
                new io.tailwatch.daemon.engine.EngineDiscovery.Found(8081, u, io.tailwatch.core.probe.EngineFlavor.OPENAI,
                        "answers", null, List.of("模型".repeat(30))));
        String[] lines = DetectCommand.table(found, List.of("ollama", "openai", "openai-2")).split("\n");
        assertThat(lines).hasSize(4);
        int at = io.tailwatch.core.text.Columns.width(lines[0].substring(0, lines[0].indexOf("FOUND BY")));
        for (String l : lines) {
            assertThat(io.tailwatch.core.text.Columns.width(l.substring(0, l.lastIndexOf("answers") < 0
                    ? l.indexOf("FOUND BY") : l.lastIndexOf("answers")))).as(l).isEqualTo(at);
        }
        // 60 ideographs (120 columns) cut to at most 48 columns with "...", no half character.
        String models = lines[3].substring(lines[3].indexOf("模"), lines[3].indexOf("...") + 3);
        assertThat(io.tailwatch.core.text.Columns.width(models)).isBetween(47, 48);
        assertThat(models).endsWith("模型...").doesNotContain("\uFFFD");
    }

    @Test
    void identifies_each_engine_by_its_api_and_prints_a_block_the_config_accepts() throws Exception {
        EngineSimulator ollama = sim("ollama", "ollama", "qwen3:8b");
        EngineSimulator mlx = sim("openai", "mlx_lm", "mlx-community/Qwen3-8B-4bit");
        EngineSimulator llama = sim("openai", "llamacpp", "qwen3-8b-q4_k_m");
        EngineSimulator lms = sim("openai", "lmstudio", "qwen/qwen3-8b");
        EngineSimulator vllm = sim("openai", "vllm", "Qwen/Qwen3-8B");
        int closed = closedPort();
        String ports = ollama.port() + "," + mlx.port() + "," + llama.port() + "," + lms.port() + "," + vllm.port() + "," + closed;

        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports", ports, "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode found = new ObjectMapper().readTree(r.out()).get("found");
        assertThat(found).hasSize(6);
        assertThat(kinds(found)).containsExactly("ollama", "mlx_lm", "llamacpp", "lmstudio", "vllm", null);
        assertThat(found.get(0).get("api").asText()).isEqualTo("ollama");
        assertThat(found.get(1).get("api").asText()).isEqualTo("openai");
        assertThat(found.get(0).get("version").asText()).isNotBlank();
        assertThat(found.get(2).get("models").get(0).asText()).isEqualTo("qwen3-8b-q4_k_m");
        assertThat(found.get(5).get("status").asText()).isEqualTo("closed");
        assertThat(found.get(1).get("name").asText()).isEqualTo("mlx");

        // The printed block is a valid engines: section of the agent's own config.
        String block = new ObjectMapper().readTree(r.out()).get("engines_block").asText();
        Config cfg = Config.parse(block, "detect output", Map.of());
        assertThat(cfg.engines()).extracting(EngineConfig::name).containsExactly("ollama", "mlx", "llamacpp", "lmstudio", "vllm");
        assertThat(cfg.engine("llamacpp").model()).isEqualTo("qwen3-8b-q4_k_m");
        assertThat(cfg.engine("ollama").model()).isNull();
        assertThat(cfg.engine("mlx").url().getPort()).isEqualTo(mlx.port());
        assertThat(cfg.engine("vllm").api()).isEqualTo("openai");
    }

    @Test
    void vllm_mlx_and_lm_studio_0_4_are_told_apart_by_their_own_answers_with_or_without_a_key() throws Exception {
        EngineSimulator vmlx = sim("openai", "vllm_mlx", "mlx-community/Qwen3-8B-4bit");
        EngineSimulator keyed = sim("openai", "vllm_mlx", "mlx-community/Qwen3-8B-4bit").requireKey("secret-key-1");
        EngineSimulator lms = EngineSimulator.start("openai", "lmstudio", "127.0.0.1", 0,
                SimulatorOptions.defaults("openai").withModel("google/gemma-3-4b").withSlots(4));
        sims.add(lms);
        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports",
                vmlx.port() + "," + keyed.port() + "," + lms.port(), "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode found = new ObjectMapper().readTree(r.out()).get("found");
        assertThat(kinds(found)).containsExactly("vllm_mlx", "vllm_mlx", "lmstudio");
        assertThat(found.get(0).get("status").asText()).contains("owned_by \"vllm-mlx\"");
        assertThat(found.get(1).get("status").asText()).contains("needs an API key").contains("engine_type");
        assertThat(found.get(2).get("status").asText()).contains("/api/v1/models");
        // The loaded model first; the embedding model is not one a probe can use.
        assertThat(found.get(2).get("models").toString()).isEqualTo("[\"google/gemma-3-4b\",\"qwen/qwen3-8b\"]");
        Config cfg = Config.parse(new ObjectMapper().readTree(r.out()).get("engines_block").asText(), "detect output",
                Map.of("VLLM_MLX_" + keyed.port() + "_API_KEY", "secret-key-1"));
        assertThat(cfg.engines()).extracting(EngineConfig::name).containsExactly("vllm-mlx", "vllm-mlx-" + keyed.port(), "lmstudio");
        assertThat(cfg.engine("vllm-mlx").model()).isEqualTo("mlx-community/Qwen3-8B-4bit");
    }

    @Test
    void the_table_names_what_was_found_and_two_of_a_kind_get_distinct_names() throws Exception {
        EngineSimulator a = sim("openai", "mlx_lm", "m1");
        EngineSimulator b = sim("openai", "mlx_lm", "m2");
        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports", a.port() + "," + b.port());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("PORT").contains("FOUND BY").contains("mlx_lm.server")
                .contains("- name: mlx\n").contains("- name: mlx-" + b.port() + "\n");
    }

    EngineSimulator batchingMlx(java.util.List<String> hub) throws Exception {
        EngineSimulator s = EngineSimulator.start("openai", "mlx_lm", "127.0.0.1", 0, SimulatorOptions.defaults("openai")
                .withModel("/Users/me/models/Sim-Llama-3-8B-4bit").withBatching(32, hub));
        sims.add(s);
        return s;
    }

    @Test
    void todays_mlx_lm_server_gets_no_model_prefilled_its_version_and_model_names_not_paths() throws Exception {
        EngineSimulator s = batchingMlx(SimulatorOptions.DEFAULT_HUB_MODELS);
        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports", String.valueOf(s.port()));
        assertThat(r.code()).isZero();
        // Nothing pre-filled: no model line names one of the cached models (naming one would make it load it).
        assertThat(r.out()).doesNotContain("model: mlx-community").doesNotContain("model: \"mlx-community")
                .doesNotContain("# model: \"/Users").contains("# model: omitted = no model field");
        assertThat(r.out()).contains("version 0.32.0 (mlx 0.32.1, applegpu_g15s)");
        assertThat(r.out()).contains("Sim-Llama-3-8B-4bit").doesNotContain("/Users/me/models");
        // Detect's own completion named no model either: nothing was swapped in.
        assertThat(s.modelLoads()).isZero();
        assertThat(s.requests()).allSatisfy(b -> assertThat(b.has("model")).isFalse());
    }

    /** Its answers do not tell the served model; the --model of the process listening on its port does. */
    @Test
    void an_mlx_lm_server_shows_the_model_its_command_line_serves() throws Exception {
        int port = io.tailwatch.testing.SimulatorChild.freePort();
        try (io.tailwatch.testing.SimulatorChild child = io.tailwatch.testing.SimulatorChild.start(
                io.tailwatch.tools.sim.SimulatedMlxLm.class, port, java.util.List.of("/opt/homebrew/bin/mlx_lm.server",
                        "--model", "mlx-community/Sim-Qwen3-0.6B-4bit", "--port", Integer.toString(port)))) {
            HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports", String.valueOf(port), "--json");
            assertThat(r.code()).isZero();
            JsonNode found = new ObjectMapper().readTree(r.out()).get("found").get(0);
            assertThat(found.get("served_model").asText()).isEqualTo("mlx-community/Sim-Qwen3-0.6B-4bit");
            HistoryCommandTest.Run t = HistoryCommandTest.run("detect", "--only", "--ports", String.valueOf(port));
            assertThat(t.out()).contains("mlx-community/Sim-Qwen3-0.6B-4bit (served)")
                    .contains("# model: omitted = no model field");
        }
        // In-process, the listening process (this JVM) tells no --model: unknown.
        EngineSimulator s = batchingMlx(SimulatorOptions.DEFAULT_HUB_MODELS);
        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports", String.valueOf(s.port()), "--json");
        assertThat(new ObjectMapper().readTree(r.out()).get("found").get(0).get("served_model").isNull()).isTrue();
    }

    @Test
    void an_mlx_lm_server_without_a_hub_is_an_engine_with_models_unknown() throws Exception {
        EngineSimulator s = batchingMlx(null);
        HistoryCommandTest.Run r = HistoryCommandTest.run("detect", "--only", "--ports", String.valueOf(s.port()), "--json");
        assertThat(r.code()).isZero();
        JsonNode found = new ObjectMapper().readTree(r.out()).get("found").get(0);
        assertThat(found.get("kind").asText()).isEqualTo("mlx_lm");
        assertThat(found.get("status").asText()).contains("models unknown");
        assertThat(found.get("models")).isEmpty();
    }

    @Test
    void nothing_found_exits_1_and_a_remote_host_is_refused() throws Exception {
        HistoryCommandTest.Run none = HistoryCommandTest.run("detect", "--only", "--ports", String.valueOf(closedPort()));
        assertThat(none.code()).isEqualTo(1);
        assertThat(none.out()).contains("closed").contains("engines: []");
        HistoryCommandTest.Run remote = HistoryCommandTest.run("detect", "--host", "192.0.2.1");
        assertThat(remote.code()).isEqualTo(2);
        assertThat(remote.err()).contains("not a loopback address");
    }

    private static List<String> kinds(JsonNode found) {
        List<String> out = new ArrayList<>();
        found.forEach(f -> out.add(f.get("kind").isNull() ? null : f.get("kind").asText()));
        return out;
    }
}
