package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.tailwatch.tools.sim.EngineSimulator;
import io.tailwatch.tools.sim.SimulatorOptions;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kv-budget --api llamacpp against a loopback server answering llama.cpp's documented /props and /v1/models. */
class KvBudgetLlamaCppTest {
    static final Path LLAMACPP = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "llamacpp");
    /** meta.size of the recorded /v1/models answer. */
    static final long GGUF_BYTES = 4_912_898_304L;

    @TempDir
    Path tmp;

    HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    /** Serves the recorded answers; {@code withModels} false answers /v1/models with 404. */
    String serve(boolean props, boolean withModels) throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", x -> {
            String path = x.getRequestURI().getPath();
            byte[] body;
            int status = 200;
            if (props && path.equals("/props")) {
                body = Files.readAllBytes(LLAMACPP.resolve("props.json"));
            } else if (withModels && path.equals("/v1/models")) {
                body = Files.readAllBytes(LLAMACPP.resolve("v1-models.json"));
            } else {
                status = 404;
                body = "{\"error\":{\"code\":404,\"message\":\"File Not Found\",\"type\":\"not_found_error\"}}".getBytes();
            }
            x.getResponseHeaders().set("Content-Type", "application/json");
            x.sendResponseHeaders(status, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    Path llamaConfig() throws Exception {
        Path dir = tmp.resolve("llama");
        Files.createDirectories(dir);
        Files.copy(KvBudgetCommandTest.FIXTURES.resolve("llama-3.1-8b.json"), dir.resolve("config.json"));
        return dir;
    }

    HistoryCommandTest.Run run(String... args) {
        return new KvBudgetCommandTest().run(Map.of(), args);
    }

    @Test
    void props_and_models_give_the_served_context_and_the_weights_and_the_checkpoint_gives_the_shape() throws Exception {
        HistoryCommandTest.Run r = run("--url", serve(true, true), "--api", "llamacpp", "--model", llamaConfig().toString(),
                "--memory", "64GiB", "--context", "4096", "--json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = new ObjectMapper().readTree(r.out());
        // Llama 3.1 8B: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 128 KiB per token.
        assertThat(j.get("bytes_per_token").asLong()).isEqualTo(131_072);
        assertThat(j.get("weights_bytes").asLong()).isEqualTo(GGUF_BYTES);
        assertThat(j.get("model_context_length").asLong()).isEqualTo(131_072);
        JsonNode s = j.get("llamacpp");
        assertThat(s.get("n_ctx_per_slot").asLong()).isEqualTo(1024);
        assertThat(s.get("total_slots").asLong()).isEqualTo(1);
        assertThat(s.get("n_ctx").isNull()).isTrue();
        assertThat(s.get("served_context").asLong()).isEqualTo(1024);
        assertThat(s.get("served_context_derived").asBoolean()).isTrue();
        assertThat(s.get("served_context_bytes").asLong()).isEqualTo(1024L * 131_072);
        assertThat(s.get("model_path").asText()).isEqualTo("../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf");
        assertThat(j.get("contexts")).extracting(c -> c.get("tokens").asLong()).containsExactly(1024L, 4096L);
        long budget = (long) Math.floor(((64L << 30) - (10L << 30) - GGUF_BYTES - (2L << 30)) * 0.8);
        assertThat(j.get("safe_max_tokens").asLong()).isEqualTo(budget / 131_072);
    }

    /**
     * The engine client's capability, not the command, knows a llama.cpp server: asked as an OpenAI-API engine (what
     * a llama.cpp server speaks) it gives what {@code --api llamacpp} gives, byte for byte; an OpenAI-API server that
     * is not llama.cpp (no /props) keeps the usage error that asks for the shape.
     */
    @Test
    void an_openai_engine_that_is_llama_cpp_reports_what_it_serves_through_its_client() throws Exception {
        String url = serve(true, true);
        String[] rest = {"--model", llamaConfig().toString(), "--memory", "64GiB", "--context", "4096", "--json"};
        HistoryCommandTest.Run alias = run(concat(new String[] {"--url", url, "--api", "llamacpp"}, rest));
        HistoryCommandTest.Run openai = run(concat(new String[] {"--url", url, "--api", "openai"}, rest));
        assertThat(openai.code()).as(openai.err()).isZero();
        assertThat(openai.out()).isEqualTo(alias.out());
        assertThat(new ObjectMapper().readTree(openai.out()).get("llamacpp").get("total_slots").asLong()).isEqualTo(1);

        stop();
        String noProps = serve(false, true);
        HistoryCommandTest.Run other = run("--url", noProps, "--api", "openai", "--model", "m");
        assertThat(other.code()).isEqualTo(2);
        assertThat(other.err()).contains("does not tell a model's architecture");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void the_text_names_the_sources_and_says_what_is_derived() throws Exception {
        HistoryCommandTest.Run r = run("--url", serve(true, true) + "/v1", "--api", "llamacpp", "--model",
                llamaConfig().toString(), "--memory", "64GiB", "--context", "4096");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("llama.cpp server: model ../models/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf, context 1024 per slot, slots 1")
                .contains("served context: 1024 tokens (1024 per slot x 1 slot, derived) -> KV cache 128.00 MiB")
                .contains("(the GGUF file, llama.cpp /v1/models meta.size) weights")
                .contains("trained for at most 131072 tokens: n_ctx_train")
                .contains("x 2 B (llama.cpp's default f16 cache")
                .contains("use -c/--ctx-size " + (long) Math.floor(((64L << 30) - (10L << 30) - GGUF_BYTES - (2L << 30)) * 0.8) / 131_072
                        + " or less (llama.cpp splits it over its 1 slot)")
                .doesNotContain("missing:");
    }

    @Test
    void without_v1_models_the_weights_are_missing_and_no_safe_maximum_is_claimed() throws Exception {
        HistoryCommandTest.Run r = run("--url", serve(true, false), "--api", "llamacpp", "--model", llamaConfig().toString(),
                "--memory", "64GiB");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("missing: GET http://127.0.0.1:").contains("/v1/models: HTTP 404; the weights' size is unknown")
                .contains("no safe maximum: the weights' size is unknown");
    }

    @Test
    void without_a_shape_it_shows_what_the_server_said_and_asks_for_one() throws Exception {
        HistoryCommandTest.Run r = run("--url", serve(true, true), "--api", "llamacpp", "--memory", "64GiB");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.out()).contains("context 1024 per slot").contains("weights 4.58 GiB");
        assertThat(r.err()).contains("no layer or KV-head counts").contains("--model");
    }

    @Test
    void a_server_without_props_is_a_failure_naming_the_endpoint() throws Exception {
        String url = serve(false, true);
        HistoryCommandTest.Run r = run("--url", url, "--api", "llamacpp", "--model", llamaConfig().toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("GET " + url + "/props: HTTP 404");
    }

    @Test
    void an_unknown_api_is_a_usage_error() {
        HistoryCommandTest.Run r = run("--url", "http://127.0.0.1:9", "--api", "vllm", "--model", "x");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("--api must be one of").contains("llamacpp").contains("got vllm");
        for (String api : io.tailwatch.core.probe.EngineApi.names()) {
            assertThat(r.err()).contains(api);
        }
    }

    @Test
    void the_simulators_llamacpp_flavour_answers_props_and_models() throws Exception {
        SimulatorOptions o = SimulatorOptions.defaults("openai");
        try (EngineSimulator sim = EngineSimulator.start("openai", "llamacpp", "127.0.0.1", 0, o)) {
            HistoryCommandTest.Run r = run("--url", "http://127.0.0.1:" + sim.port(), "--api", "llamacpp", "--model",
                    llamaConfig().toString(), "--memory", "64GiB", "--json");
            assertThat(r.code()).as(r.err()).isZero();
            JsonNode s = new ObjectMapper().readTree(r.out()).get("llamacpp");
            assertThat(s.get("total_slots").asLong()).isEqualTo(o.slots());
            assertThat(s.get("served_context").asLong()).isEqualTo(4096L * o.slots());
            assertThat(s.get("weights_bytes").asLong()).isEqualTo(GGUF_BYTES);
            assertThat(s.get("missing")).isEmpty();
        }
    }
}
