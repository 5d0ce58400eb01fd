package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * LM Studio 0.4 and later beside its OpenAI-compatible endpoints: the native {@code GET /api/v1/models}, one
 * entry per model with {@code key}, {@code type} (llm or embedding), {@code max_context_length} and
 * {@code loaded_instances} (each with {@code id} and {@code config}: {@code context_length}, {@code parallel},
 * ...). The served model is loaded once with {@code parallel} = the simulator's slots; a second LLM and an
 * embedding model are listed unloaded. {@code POST /api/v1/chat}, the native chat, streamed as named events or
 * whole, each answer with the engine's {@code stats}. Everything else is the OpenAI wire's (and /api/v0/models).
 */
public final class LmStudioWire extends FlavorWire<LmStudioWire> {
    /** The context a loaded instance of the simulator is configured with. */
    public static final int CONTEXT_LENGTH = 8192;
    private static final java.util.concurrent.atomic.AtomicLong RESPONSES = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean loaded = true;
    private volatile JsonNode lastStats;

    LmStudioWire(EngineSimulator sim, EngineSimulator.Wire rest) {
        super(sim, rest);
    }

    /** With false, the served model is listed without loaded instances (unloaded, or loading just in time). */
    public LmStudioWire loaded(boolean l) {
        loaded = l;
        return this;
    }

    @Override
    boolean own(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        if ("/api/v1/chat".equals(path)) {
            if (!"POST".equals(x.getRequestMethod())) {
                sim.sendJson(x, 405, error("invalid_request", "method not allowed", null, null));
            } else {
                chat(x);
            }
            return true;
        }
        if (!"/api/v1/models".equals(path)) {
            return false;
        }
        SimReplies.json(x, 200, models());
        return true;
    }

    /** The stats of the last answered native chat (null before one), as they went out. */
    public JsonNode lastStats() {
        return lastStats;
    }

    /**
     * The native chat, streamed (named SSE events: chat.start, prompt_processing.*, message.start, one
     * message.delta a token, message.end, chat.end with the whole result) or whole; {@code stats} are the
     * generation's true figures: its input and output tokens, output tokens over the decode time, and the time
     * from the request's arrival to its first token. {@code store} (default true) adds a {@code response_id}.
     */
    private void chat(HttpExchange x) throws IOException {
        JsonNode body = sim.readBody(x);
        String model = body.path("model").isTextual() ? body.path("model").asText() : null;
        if (model == null) {
            sim.sendJson(x, 400, error("invalid_request", "\"model\" is required", "missing_required_parameter", "model"));
            return;
        }
        String input = input(body.get("input"));
        if (input == null) {
            sim.sendJson(x, 400, error("invalid_request", "\"input\" is required", "missing_required_parameter", "input"));
            return;
        }
        if (!model.equals(sim.options().model())) {
            sim.sendJson(x, 404, error("model_not_found", "Model \"" + model + "\" not found", null, "model"));
            return;
        }
        boolean stream = body.path("stream").asBoolean(false);
        boolean store = body.path("store").asBoolean(true);
        int max = body.path("max_output_tokens").asInt(100);
        ObjectNode gen = EngineSimulator.JSON.createObjectNode().put("model", model).put("prompt",
                body.path("system_prompt").asText("") + " " + input);
        sim.generate(x, gen, max <= 0 ? 100 : max, new EngineSimulator.TokenLines(x, stream, "text/event-stream") {
            @Override
            public void start() throws IOException {
                super.start();
                if (stream) {
                    event("chat.start", EngineSimulator.JSON.createObjectNode().put("model_instance_id", model));
                    event("prompt_processing.start", EngineSimulator.JSON.createObjectNode());
                }
            }

            @Override
            public void waiting(int step, int steps) throws IOException {
                if (stream && steps > 0) {
                    event("prompt_processing.progress", EngineSimulator.JSON.createObjectNode()
                            .put("progress", Math.min(1.0, step / (double) steps)));
                }
            }

            @Override
            public void token(int index, String text) throws IOException {
                if (stream && index == 0) {
                    event("prompt_processing.end", EngineSimulator.JSON.createObjectNode());
                    event("message.start", EngineSimulator.JSON.createObjectNode());
                }
                super.token(index, text);
            }

            @Override
            void streamed(String text) throws IOException {
                all.append(text);
                event("message.delta", EngineSimulator.JSON.createObjectNode().put("content", text));
            }

            @Override
            public void finish(EngineSimulator.Outcome o) throws IOException {
                ObjectNode result = EngineSimulator.JSON.createObjectNode();
                result.put("model_instance_id", model);
                result.putArray("output").addObject().put("type", "message").put("content", all.toString());
                ObjectNode st = result.putObject("stats");
                st.put("input_tokens", o.promptTokens());
                st.put("total_output_tokens", o.completionTokens());
                st.put("reasoning_output_tokens", 0);
                st.put("tokens_per_second", o.completionTokens() / (o.evalNanos() / 1e9));
                st.put("time_to_first_token_seconds", Math.round((o.firstTokenNanos() - o.loadNanos()) / 1e6) / 1e3);
                if (store) {
                    result.put("response_id", String.format("resp_%048x", RESPONSES.incrementAndGet()));
                }
                lastStats = st.deepCopy();
                if (stream) {
                    event("message.end", EngineSimulator.JSON.createObjectNode());
                    ObjectNode end = EngineSimulator.JSON.createObjectNode();
                    end.set("result", result);
                    event("chat.end", end);
                } else {
                    sim.sendJson(x, 200, result);
                }
            }

            private void event(String type, ObjectNode data) throws IOException {
                ObjectNode d = EngineSimulator.JSON.createObjectNode().put("type", type);
                d.setAll(data);
                out.write(("event: " + type + "\ndata: " + d + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        });
    }

    /** The text of a native chat's {@code input}: a string, or the text items of a list; null when neither. */
    private static String input(JsonNode in) {
        if (in != null && in.isTextual()) {
            return in.asText();
        }
        if (in == null || !in.isArray()) {
            return null;
        }
        StringBuilder b = new StringBuilder();
        for (JsonNode item : in) {
            if (item.path("content").isTextual()) {
                b.append(' ').append(item.path("content").asText());
            }
        }
        return b.toString();
    }

    /** LM Studio's REST error: {@code {"error": {"type", "message", "code", "param"}}}. */
    private static ObjectNode error(String type, String message, String code, String param) {
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        ObjectNode e = root.putObject("error").put("type", type).put("message", message);
        if (code != null) {
            e.put("code", code);
        }
        if (param != null) {
            e.put("param", param);
        }
        return root;
    }

    private String models() {
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        ArrayNode models = root.putArray("models");
        ObjectNode m = model(models, "llm", sim.options().model(), 32_768);
        m.put("architecture", "llama");
        ArrayNode li = m.putArray("loaded_instances");
        if (loaded) {
            ObjectNode inst = li.addObject();
            inst.put("id", sim.options().model());
            ObjectNode cfg = inst.putObject("config");
            cfg.put("context_length", CONTEXT_LENGTH);
            cfg.put("eval_batch_size", 512);
            cfg.put("parallel", sim.options().slots());
            cfg.put("flash_attention", true);
            cfg.put("offload_kv_cache_to_gpu", true);
        }
        model(models, "llm", "qwen/qwen3-8b", 40_960).putArray("loaded_instances");
        model(models, "embedding", "text-embedding-nomic-embed-text-v1.5", 2048).putArray("loaded_instances");
        return root.toString();
    }

    private static ObjectNode model(ArrayNode models, String type, String key, int maxContext) {
        ObjectNode m = models.addObject();
        m.put("type", type);
        m.put("publisher", "lmstudio-community");
        m.put("key", key);
        m.put("display_name", key);
        m.putObject("quantization").put("name", "Q4_K_M").put("bits_per_weight", 4);
        m.put("size_bytes", 4_920_000_000L);
        m.put("max_context_length", maxContext);
        m.put("format", "gguf");
        return m;
    }
}
