package io.tailwatch.core.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Health and inventory of the OpenAI-compatible servers the simulator does not imitate, from canned answers. */
class InventoryTest {
    /** Serves fixed bodies per path (status, body); anything else is 404. */
    static HttpServer serve(Map<String, Object[]> routes) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        s.createContext("/", x -> {
            Object[] r = routes.get(x.getRequestURI().getPath());
            int status = r == null ? 404 : (int) r[0];
            byte[] b = (r == null ? "{\"error\":\"not found\"}" : (String) r[1]).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(status, b.length);
            x.getResponseBody().write(b);
            x.close();
        });
        s.start();
        return s;
    }

    static EngineHealth health(String api, HttpServer s) {
        try (EngineClient c = EngineClients.create(api, URI.create("http://127.0.0.1:" + s.getAddress().getPort() + "/v1/"), null)) {
            return c.health(Duration.ofSeconds(2));
        }
    }

    @Test
    void llamaCppLoadingThenServing() throws IOException {
        HttpServer s = serve(Map.of("/health", new Object[] {503, "{\"error\":{\"code\":503,\"message\":\"Loading model\"}}"},
                "/v1/models", new Object[] {503, "{\"error\":{\"code\":503,\"message\":\"Loading model\"}}"}));
        try {
            EngineHealth h = health("openai", s);
            assertThat(h.up()).isTrue();
            assertThat(h.loading()).isTrue();
            assertThat(h.inventoryKnown()).isFalse();
            assertThat(h.provider()).isEqualTo("llama_cpp");
        } finally {
            s.stop(0);
        }
        s = serve(Map.of("/health", new Object[] {200, "{\"status\":\"ok\"}"},
                "/v1/models", new Object[] {200, "{\"object\":\"list\",\"data\":[{\"id\":\"qwen3-8b-q4_k_m.gguf\",\"object\":\"model\",\"owned_by\":\"llamacpp\"}]}"}));
        try {
            EngineHealth h = health("openai", s);
            assertThat(h.loading()).isFalse();
            assertThat(h.provider()).isEqualTo("llama_cpp");
            assertThat(h.models()).extracting(LoadedModel::name).containsExactly("qwen3-8b-q4_k_m.gguf");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void lmStudioReportsOnlyLoadedModels() throws IOException {
        HttpServer s = serve(Map.of(
                "/v1/models", new Object[] {200, "{\"data\":[{\"id\":\"a\",\"owned_by\":\"organization_owner\"},{\"id\":\"b\",\"owned_by\":\"organization_owner\"}]}"},
                "/api/v0/models", new Object[] {200, "{\"data\":[{\"id\":\"a\",\"state\":\"not-loaded\",\"max_context_length\":32768},"
                        + "{\"id\":\"b\",\"state\":\"loaded\",\"max_context_length\":8192}]}"}));
        try {
            EngineHealth h = health("openai", s);
            assertThat(h.provider()).isEqualTo("lm_studio");
            assertThat(h.models()).extracting(LoadedModel::name).containsExactly("b");
            assertThat(h.models().get(0).contextLength()).isEqualTo(8192L);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void vllmIsRecognisedByItsOwner() throws IOException {
        HttpServer s = serve(Map.of("/health", new Object[] {200, ""},
                "/v1/models", new Object[] {200, "{\"data\":[{\"id\":\"m\",\"owned_by\":\"vllm\",\"max_model_len\":32768}]}"}));
        try {
            EngineHealth h = health("openai", s);
            assertThat(h.up()).isTrue();
            assertThat(h.provider()).isEqualTo("vllm");
            assertThat(h.models().get(0).contextLength()).isEqualTo(32768L);
        } finally {
            s.stop(0);
        }
    }

    @Test
    void ollamaUpButInventoryUnreadable() throws IOException {
        HttpServer s = serve(Map.of("/api/version", new Object[] {200, "{\"version\":\"0.12.0\"}"},
                "/api/ps", new Object[] {500, "{\"error\":\"boom\"}"}));
        try {
            EngineHealth h = health("ollama", s);
            assertThat(h.up()).isTrue();
            assertThat(h.version()).isEqualTo("0.12.0");
            assertThat(h.inventoryKnown()).isFalse();
            assertThat(h.error()).contains("/api/ps").contains("500");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void ollamaModelWithoutKnownShapeHasNoKvFigures() throws IOException {
        HttpServer s = serve(Map.of("/api/version", new Object[] {200, "{\"version\":\"0.12.0\"}"},
                "/api/ps", new Object[] {200, "{\"models\":[{\"name\":\"x:1b\",\"digest\":\"d\",\"size\":10,\"size_vram\":5,\"context_length\":2048}]}"},
                "/api/show", new Object[] {200, "{\"model_info\":{\"general.architecture\":\"mamba\"}}"}));
        try {
            EngineHealth h = health("ollama", s);
            assertThat(h.models()).hasSize(1);
            assertThat(h.models().get(0).shape()).isNull();
            assertThat(h.models().get(0).vramBytes()).isEqualTo(5L);
        } finally {
            s.stop(0);
        }
    }
}
