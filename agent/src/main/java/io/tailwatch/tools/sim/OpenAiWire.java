package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OpenAI-compatible API as mlx_lm.server and llama.cpp serve it: GET /v1/models, /health (503
 * "Loading model" while loading), and /v1/chat/completions, streamed as SSE with a role chunk,
 * ": keepalive N/M" comments during prefill, content deltas, a finish chunk, a usage chunk with
 * {@code choices: []} when include_usage is asked for, and {@code data: [DONE]}.
 *
 * <p>The batching mlx_lm flavour ({@link SimulatorOptions#batching()}) answers as mlx_lm.server 0.28 and
 * later: /health ok while the model loads, /v1/models listing the Hugging Face cache first (shuffled) then
 * the served model, or 200 with an empty body without a hub; a request naming another listed model makes it
 * load that one; no role-only first chunk; a lone token held back and sent with the next (chunks are not
 * tokens); {@code system_fingerprint} as mlx-lm writes it; with {@code "stream_options": {}} the stream
 * ends after the finish chunk without {@code [DONE]} (the server's KeyError).
 */
final class OpenAiWire implements EngineSimulator.Wire {
    private static final AtomicLong IDS = new AtomicLong();
    /** GGUF size the llamacpp flavour reports in /v1/models meta.size (an 8B model at Q4_K_M). */
    static final long SIM_GGUF_BYTES = 4_912_898_304L;
    /** Context of each llama.cpp slot the llamacpp flavour reports. */
    static final int SLOT_CONTEXT = 4096;
    /** mlx_lm's system_fingerprint: mlx-lm version, mlx version, platform, GPU architecture. */
    static final String MLX_FINGERPRINT = "0.32.0-0.32.1-macOS-15.6.1-arm64-arm-64bit-applegpu_g15s";
    private final EngineSimulator sim;
    private final java.util.Random shuffle = new java.util.Random(17);

    OpenAiWire(EngineSimulator sim) {
        this.sim = sim;
    }

    @Override
    public void handle(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        switch (path) {
            case "/props" -> {
                if ("llamacpp".equals(sim.flavor())) {
                    ObjectNode props = EngineSimulator.JSON.createObjectNode();
                    props.putObject("default_generation_settings").put("n_ctx", SLOT_CONTEXT);
                    props.put("total_slots", sim.options().slots());
                    props.put("model_path", "/models/" + sim.options().model() + ".gguf");
                    props.put("build_info", "b6000-sim");
                    sim.sendJson(x, 200, props);
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/api/v0/models" -> {
                if ("lmstudio".equals(sim.flavor())) {
                    ObjectNode list = EngineSimulator.JSON.createObjectNode();
                    list.put("object", "list");
                    list.putArray("data").addObject().put("id", sim.options().model()).put("object", "model")
                            .put("type", "llm").put("compatibility_type", "mlx").put("state", "loaded")
                            .put("max_context_length", 32768);
                    sim.sendJson(x, 200, list);
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/version" -> {
                if ("vllm".equals(sim.flavor())) {
                    sim.sendJson(x, 200, EngineSimulator.JSON.createObjectNode().put("version", "0.10.1-sim"));
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/health" -> {
                if ("ollama".equals(sim.api())) {
                    sim.sendText(x, 404, "404 page not found");
                } else if (sim.loaded() || sim.batching()) {
                    sim.sendJson(x, 200, EngineSimulator.JSON.createObjectNode().put("status", "ok"));
                } else {
                    sim.sendJson(x, 503, EngineSimulator.codedError(503, "Loading model", "unavailable_error"));
                }
            }
            case "/v1/models" -> {
                if (sim.batching()) {
                    mlxModels(x);
                    return;
                }
                ObjectNode root = EngineSimulator.JSON.createObjectNode();
                ObjectNode m = SimReplies.modelList(root, java.util.List.of(sim.options().model())).get(0);
                if ("ollama".equals(sim.api())) {
                    m.put("owned_by", "library");
                } else if ("vllm".equals(sim.flavor())) {
                    m.put("owned_by", "vllm");
                } else if ("llamacpp".equals(sim.flavor())) {
                    m.put("owned_by", "llamacpp");
                    // llama-server's GGUF summary; null while the model loads, as the real server sends it
                    if (sim.loaded()) {
                        ObjectNode meta = m.putObject("meta");
                        meta.put("vocab_type", 2);
                        meta.put("n_vocab", 128_256);
                        meta.put("n_ctx_train", 131_072);
                        meta.put("n_embd", 4096);
                        meta.put("n_params", 8_030_261_312L);
                        meta.put("size", SIM_GGUF_BYTES);
                    } else {
                        m.putNull("meta");
                    }
                } else if ("lmstudio".equals(sim.flavor())) {
                    m.put("owned_by", "organization_owner");
                }
                sim.sendJson(x, 200, root);
            }
            case "/slots" -> {
                if ("llamacpp".equals(sim.flavor())) {
                    slots(x);
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/completion" -> {
                if (!"llamacpp".equals(sim.flavor())) {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                } else if (!"POST".equals(x.getRequestMethod())) {
                    sim.sendJson(x, 405, error("method not allowed", "invalid_request_error"));
                } else {
                    completion(x);
                }
            }
            case "/v1/chat/completions" -> {
                if (!"POST".equals(x.getRequestMethod())) {
                    sim.sendJson(x, 405, error("method not allowed", "invalid_request_error"));
                } else {
                    chat(x);
                }
            }
            default -> {
                if (sim.batching()) {
                    sim.sendText(x, 404, "Not Found");
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
        }
    }

    /** mlx_lm.server's list: the cache's models in no fixed order, then the served one; no hub: 200, empty body. */
    private void mlxModels(HttpExchange x) throws IOException {
        java.util.List<String> hub = sim.options().hubModels();
        if (hub == null) {
            sim.sendJson(x, 200, "");
            return;
        }
        java.util.List<String> ids = new java.util.ArrayList<>(hub);
        synchronized (shuffle) {
            java.util.Collections.shuffle(ids, shuffle);
        }
        if (!ids.contains(sim.options().model())) {
            ids.add(sim.options().model());
        }
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        SimReplies.modelList(root, ids);
        sim.sendJson(x, 200, root);
    }

    /** The model a batching mlx_lm request is served by: its own name, the start model for none or default_model. */
    private String mlxModel(JsonNode body) {
        String named = body.path("model").isTextual() ? body.path("model").asText() : null;
        if (named == null || named.equals("default_model")) {
            return sim.options().model();
        }
        java.util.List<String> hub = sim.options().hubModels();
        return named.equals(sim.options().model()) || hub != null && hub.contains(named) ? named : null;
    }

    /** llama-server's /slots: one object per slot; as many as are generating show {@code is_processing}. */
    private void slots(HttpExchange x) throws IOException {
        int busy = sim.active();
        com.fasterxml.jackson.databind.node.ArrayNode list = EngineSimulator.JSON.createArrayNode();
        for (int i = 0; i < sim.options().slots(); i++) {
            list.addObject().put("id", i).put("id_task", i < busy ? i : -1).put("n_ctx", SLOT_CONTEXT)
                    .put("speculative", false).put("is_processing", i < busy);
        }
        sim.sendJson(x, 200, list);
    }

    /**
     * llama-server's native /completion (what Ollama's server sends its runner): streamed, one
     * {@code data: {"content": ..., "stop": false}} event a token, then a stop event with {@code timings}.
     */
    private void completion(HttpExchange x) throws IOException {
        JsonNode body = sim.readBody(x);
        boolean stream = body.path("stream").asBoolean(false);
        int max = body.path("n_predict").asInt(16);
        if (max <= 0) {
            max = 16;
        }
        sim.generate(x, body, max, new EngineSimulator.TokenLines(x, stream, "text/event-stream") {
            @Override
            void streamed(String text) throws IOException {
                event(EngineSimulator.JSON.createObjectNode().put("content", text).put("stop", false));
            }

            @Override
            public void finish(EngineSimulator.Outcome o) throws IOException {
                ObjectNode end = EngineSimulator.JSON.createObjectNode();
                end.put("content", stream ? "" : all.toString());
                end.put("stop", true);
                end.put("stop_type", "limit");
                end.put("tokens_predicted", o.completionTokens());
                end.put("tokens_evaluated", o.promptTokens());
                ObjectNode t = end.putObject("timings");
                t.put("cache_n", 0);
                t.put("prompt_n", o.promptTokens());
                t.put("prompt_ms", o.promptNanos() / 1e6);
                t.put("predicted_n", o.completionTokens());
                t.put("predicted_ms", o.evalNanos() / 1e6);
                if (stream) {
                    event(end);
                } else {
                    sim.sendJson(x, 200, end);
                }
            }

            private void event(ObjectNode n) throws IOException {
                out.write(("data: " + n + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        });
    }

    private static ObjectNode error(String message, String type) {
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        ObjectNode e = root.putObject("error");
        e.put("message", message);
        e.put("type", type);
        e.putNull("param");
        e.putNull("code");
        return root;
    }

    private void chat(HttpExchange x) throws IOException {
        JsonNode body = sim.readBody(x);
        boolean mlx = sim.batching();
        String model = mlx ? body.path("model").asText("default_model") : body.path("model").asText(sim.options().model());
        String serveWith = mlx ? mlxModel(body) : sim.options().model();
        if (serveWith == null) {
            sim.dropModel(); // mlx_lm drops the model it holds before it finds the name unknown
            sim.sendJson(x, 404, error("The model `" + model + "` does not exist.", "invalid_request_error"));
            return;
        }
        if (!mlx && !sim.options().model().equals(model) && !"default_model".equals(model)) {
            sim.sendJson(x, 404, error("The model `" + model + "` does not exist.", "invalid_request_error"));
            return;
        }
        if (sim.drawError()) {
            sim.sendJson(x, 500, error("simulated server error", "server_error"));
            return;
        }
        boolean stream = body.path("stream").asBoolean(false);
        boolean usage = body.path("stream_options").path("include_usage").asBoolean(false);
        // mlx_lm reads stream_options["include_usage"]: an object without the key raises after the finish chunk
        boolean raises = mlx && body.path("stream_options").isObject() && !body.path("stream_options").has("include_usage");
        StringBuilder held = new StringBuilder();
        int max = body.path("max_completion_tokens").asInt(body.path("max_tokens").asInt(100));
        if (max <= 0) {
            max = 100;
        }
        String id = "chatcmpl-" + IDS.incrementAndGet();
        long created = System.currentTimeMillis() / 1000;
        StringBuilder all = new StringBuilder();
        OutputStream[] out = new OutputStream[1];
        sim.generate(x, body, max, new EngineSimulator.Emitter() {
            @Override
            public void start() throws IOException {
                if (!stream) {
                    return;
                }
                x.getResponseHeaders().set("Content-Type", "text/event-stream");
                x.getResponseHeaders().set("Cache-Control", "no-cache");
                x.sendResponseHeaders(200, 0);
                out[0] = x.getResponseBody();
                if (mlx) {
                    return; // headers at admission; the first chunk carries content
                }
                ObjectNode c = chunk(id, created, model);
                ObjectNode delta = c.withArray("choices").addObject().put("index", 0).putObject("delta");
                delta.put("role", "assistant");
                delta.put("content", "");
                ((ObjectNode) c.get("choices").get(0)).putNull("finish_reason");
                data(c.toString());
            }

            @Override
            public void waiting(int step, int steps) throws IOException {
                if (stream) {
                    write(": keepalive " + step + "/" + steps + "\n\n");
                }
            }

            @Override
            public void token(int index, String text) throws IOException {
                if (!stream) {
                    all.append(text);
                    return;
                }
                held.append(text);
                if (mlx && index % 4 == 1) {
                    return; // the detokenizer holds this token back: the next chunk carries two
                }
                flushHeld();
            }

            private void flushHeld() throws IOException {
                if (held.length() == 0) {
                    return;
                }
                ObjectNode c = chunk(id, created, model);
                ObjectNode choice = c.putArray("choices").addObject();
                choice.put("index", 0);
                choice.putObject("delta").put("role", "assistant").put("content", held.toString());
                choice.putNull("finish_reason");
                data(c.toString());
                held.setLength(0);
            }

            @Override
            public void finish(EngineSimulator.Outcome o) throws IOException {
                ObjectNode u = EngineSimulator.JSON.createObjectNode();
                u.put("prompt_tokens", o.promptTokens());
                u.put("completion_tokens", o.completionTokens());
                u.put("total_tokens", o.promptTokens() + o.completionTokens());
                u.putObject("prompt_tokens_details").put("cached_tokens", 0);
                if (!stream) {
                    ObjectNode r = EngineSimulator.JSON.createObjectNode();
                    r.put("id", id);
                    r.put("object", "chat.completion");
                    r.put("created", created);
                    r.put("model", model);
                    r.put("system_fingerprint", mlx ? MLX_FINGERPRINT : "tailwatch-sim");
                    ObjectNode choice = r.putArray("choices").addObject();
                    choice.put("index", 0);
                    choice.putObject("message").put("role", "assistant").put("content", all.toString());
                    choice.put("finish_reason", o.finishReason());
                    r.set("usage", u);
                    sim.sendJson(x, 200, r);
                    return;
                }
                flushHeld();
                ObjectNode c = chunk(id, created, model);
                ObjectNode choice = c.putArray("choices").addObject();
                choice.put("index", 0);
                choice.putObject("delta");
                choice.put("finish_reason", o.finishReason());
                data(c.toString());
                if (raises) {
                    return; // KeyError: 'include_usage' -- the connection closes without [DONE]
                }
                if (usage) {
                    ObjectNode uc = chunk(id, created, model);
                    uc.putArray("choices");
                    uc.set("usage", u);
                    data(uc.toString());
                }
                data("[DONE]");
            }

            private void data(String payload) throws IOException {
                write("data: " + payload + "\n\n");
            }

            private void write(String s) throws IOException {
                out[0].write(s.getBytes(StandardCharsets.UTF_8));
                out[0].flush();
            }
        }, serveWith);
    }

    private ObjectNode chunk(String id, long created, String model) {
        ObjectNode c = EngineSimulator.JSON.createObjectNode();
        c.put("id", id);
        c.put("object", "chat.completion.chunk");
        c.put("created", created);
        c.put("model", model);
        c.put("system_fingerprint", sim.batching() ? MLX_FINGERPRINT : "tailwatch-sim");
        return c;
    }
}
