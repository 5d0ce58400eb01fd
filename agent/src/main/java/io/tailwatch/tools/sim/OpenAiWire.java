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
 */
final class OpenAiWire implements EngineSimulator.Wire {
    private static final AtomicLong IDS = new AtomicLong();
    /** GGUF size the llamacpp flavour reports in /v1/models meta.size (an 8B model at Q4_K_M). */
    static final long SIM_GGUF_BYTES = 4_912_898_304L;
    private final EngineSimulator sim;

    OpenAiWire(EngineSimulator sim) {
        this.sim = sim;
    }

    @Override
    public void handle(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        switch (path) {
            case "/props" -> {
                if ("llamacpp".equals(sim.flavor())) {
                    sim.sendJson(x, 200, "{\"default_generation_settings\":{\"n_ctx\":4096},\"total_slots\":"
                            + sim.options().slots() + ",\"model_path\":\"/models/" + sim.options().model()
                            + ".gguf\",\"build_info\":\"b6000-sim\"}");
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/api/v0/models" -> {
                if ("lmstudio".equals(sim.flavor())) {
                    sim.sendJson(x, 200, "{\"object\":\"list\",\"data\":[{\"id\":\"" + sim.options().model()
                            + "\",\"object\":\"model\",\"type\":\"llm\",\"compatibility_type\":\"mlx\",\"state\":\"loaded\","
                            + "\"max_context_length\":32768}]}");
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/version" -> {
                if ("vllm".equals(sim.flavor())) {
                    sim.sendJson(x, 200, "{\"version\":\"0.10.1-sim\"}");
                } else {
                    sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
                }
            }
            case "/health" -> {
                if ("ollama".equals(sim.api())) {
                    sim.sendText(x, 404, "404 page not found");
                } else if (sim.loaded()) {
                    sim.sendJson(x, 200, "{\"status\":\"ok\"}");
                } else {
                    sim.sendJson(x, 503, "{\"error\":{\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}}");
                }
            }
            case "/v1/models" -> {
                ObjectNode root = EngineSimulator.JSON.createObjectNode();
                root.put("object", "list");
                ObjectNode m = root.putArray("data").addObject();
                m.put("id", sim.options().model());
                m.put("object", "model");
                m.put("created", 1_767_600_000L);
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
                sim.sendJson(x, 200, root.toString());
            }
            case "/v1/chat/completions" -> {
                if (!"POST".equals(x.getRequestMethod())) {
                    sim.sendJson(x, 405, error("method not allowed", "invalid_request_error"));
                } else {
                    chat(x);
                }
            }
            default -> sim.sendJson(x, 404, error("not found: " + path, "invalid_request_error"));
        }
    }

    private static String error(String message, String type) {
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        ObjectNode e = root.putObject("error");
        e.put("message", message);
        e.put("type", type);
        e.putNull("param");
        e.putNull("code");
        return root.toString();
    }

    private void chat(HttpExchange x) throws IOException {
        JsonNode body = sim.readBody(x);
        String model = body.path("model").asText(sim.options().model());
        if (!sim.options().model().equals(model) && !"default_model".equals(model)) {
            sim.sendJson(x, 404, error("The model `" + model + "` does not exist.", "invalid_request_error"));
            return;
        }
        if (sim.drawError()) {
            sim.sendJson(x, 500, error("simulated server error", "server_error"));
            return;
        }
        boolean stream = body.path("stream").asBoolean(false);
        boolean usage = body.path("stream_options").path("include_usage").asBoolean(false);
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
                ObjectNode c = chunk(id, created, model);
                ObjectNode choice = c.putArray("choices").addObject();
                choice.put("index", 0);
                choice.putObject("delta").put("role", "assistant").put("content", text);
                choice.putNull("finish_reason");
                data(c.toString());
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
                    ObjectNode choice = r.putArray("choices").addObject();
                    choice.put("index", 0);
                    choice.putObject("message").put("role", "assistant").put("content", all.toString());
                    choice.put("finish_reason", o.finishReason());
                    r.set("usage", u);
                    sim.sendJson(x, 200, r.toString());
                    return;
                }
                ObjectNode c = chunk(id, created, model);
                ObjectNode choice = c.putArray("choices").addObject();
                choice.put("index", 0);
                choice.putObject("delta");
                choice.put("finish_reason", o.finishReason());
                data(c.toString());
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
        });
    }

    private static ObjectNode chunk(String id, long created, String model) {
        ObjectNode c = EngineSimulator.JSON.createObjectNode();
        c.put("id", id);
        c.put("object", "chat.completion.chunk");
        c.put("created", created);
        c.put("model", model);
        c.put("system_fingerprint", "tailwatch-sim");
        return c;
    }
}
