package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;

/**
 * LM Studio 0.4 and later beside its OpenAI-compatible endpoints: the native {@code GET /api/v1/models}, one
 * entry per model with {@code key}, {@code type} (llm or embedding), {@code max_context_length} and
 * {@code loaded_instances} (each with {@code id} and {@code config}: {@code context_length}, {@code parallel},
 * ...). The served model is loaded once with {@code parallel} = the simulator's slots; a second LLM and an
 * embedding model are listed unloaded. Everything else is the OpenAI wire's (and /api/v0/models).
 */
public final class LmStudioWire extends FlavorWire<LmStudioWire> {
    /** The context a loaded instance of the simulator is configured with. */
    public static final int CONTEXT_LENGTH = 8192;
    private volatile boolean loaded = true;

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
        if (!"/api/v1/models".equals(x.getRequestURI().getPath())) {
            return false;
        }
        SimReplies.json(x, 200, models());
        return true;
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
