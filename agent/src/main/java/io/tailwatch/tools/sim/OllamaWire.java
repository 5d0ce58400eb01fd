package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Ollama's native API as the simulator serves it: GET /, /api/version, /api/tags, /api/ps,
 * POST /api/show, streaming NDJSON /api/chat and /api/generate (final line with the nanosecond
 * counters), and the OpenAI-compatible /v1 routes Ollama also offers.
 */
final class OllamaWire implements EngineSimulator.Wire {
    static final String VERSION = "0.12.6";
    static final long SIZE = 4_920_753_328L;
    static final int CONTEXT = 4096;

    /** How long Ollama keeps a model loaded after its last request (OLLAMA_KEEP_ALIVE's default). */
    static final long KEEP_ALIVE_MILLIS = 5 * 60_000L;
    /** Bound on one event line read from the runner. */
    static final int MAX_RUNNER_LINE = 1 << 20;

    private final EngineSimulator sim;
    private final OpenAiWire openai;
    /** The runner child that generates (null: this process generates, as the Ollama of 2025 did in-process). */
    private final OllamaRunner runner;

    OllamaWire(EngineSimulator sim, OllamaRunner runner) {
        this.sim = sim;
        this.openai = new OpenAiWire(sim);
        this.runner = runner;
    }

    @Override
    public void handle(HttpExchange x) throws IOException {
        String path = x.getRequestURI().getPath();
        String method = x.getRequestMethod();
        switch (path) {
            case "/" -> sim.sendText(x, 200, "Ollama is running");
            case "/api/version" -> sim.sendJson(x, 200, EngineSimulator.JSON.createObjectNode().put("version", VERSION));
            case "/api/tags" -> sim.sendJson(x, 200, tags());
            case "/api/ps" -> sim.sendJson(x, 200, ps());
            case "/api/show" -> show(x);
            case "/api/chat", "/api/generate" -> {
                if (!"POST".equals(method)) {
                    sim.sendJson(x, 405, EngineSimulator.error("method not allowed"));
                } else {
                    generate(x, path.equals("/api/chat"));
                }
            }
            default -> {
                if (path.startsWith("/v1/")) {
                    openai.handle(x);
                } else {
                    sim.sendText(x, 404, "404 page not found");
                }
            }
        }
    }

    private ObjectNode details() {
        ObjectNode d = EngineSimulator.JSON.createObjectNode();
        d.put("parent_model", "");
        d.put("format", "gguf");
        d.put("family", "llama");
        d.putArray("families").add("llama");
        d.put("parameter_size", "8.0B");
        d.put("quantization_level", "Q4_K_M");
        return d;
    }

    private String digest() {
        return "365c0bd3c000a25d28ddbf732fe1c6add414de7275464c4e4d1c3b5fcb5d8ad1";
    }

    private ObjectNode tags() {
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        ObjectNode m = root.putArray("models").addObject();
        String name = sim.options().model();
        m.put("name", name);
        m.put("model", name);
        m.put("modified_at", "2026-01-05T10:00:00.000000000Z");
        m.put("size", SIZE);
        m.put("digest", digest());
        m.set("details", details());
        return root;
    }

    private ObjectNode ps() {
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        ArrayNode models = root.putArray("models");
        if (runner != null ? runner.loaded() : sim.loaded()) {
            ObjectNode m = models.addObject();
            String name = sim.options().model();
            m.put("name", name);
            m.put("model", name);
            m.put("size", SIZE + 1_073_741_824L);
            m.put("digest", digest());
            m.set("details", details());
            m.put("expires_at", runner != null ? Instant.ofEpochMilli(runner.lastUsedMillis() + KEEP_ALIVE_MILLIS).toString()
                    : Instant.now().plus(5, ChronoUnit.MINUTES).toString());
            m.put("size_vram", SIZE + 1_073_741_824L);
            m.put("context_length", runner != null ? runner.spec().contextLength() : CONTEXT);
        }
        return root;
    }

    private void show(HttpExchange x) throws IOException {
        JsonNode body = sim.readBody(x);
        String want = body.path("model").asText(body.path("name").asText(""));
        if (!sim.options().model().equals(want)) {
            sim.sendJson(x, 404, EngineSimulator.error("model '" + want + "' not found"));
            return;
        }
        ObjectNode root = EngineSimulator.JSON.createObjectNode();
        root.put("license", "simulated");
        root.put("modelfile", "FROM " + want + "\n");
        root.put("parameters", "stop \"<|eot_id|>\"");
        root.put("template", "{{ .Prompt }}");
        root.set("details", details());
        root.set("model_info", modelInfo());
        root.putArray("capabilities").add("completion");
        root.put("modified_at", "2026-01-05T10:00:00.000000000Z");
        sim.sendJson(x, 200, root);
    }

    /** A Llama-3-8B-shaped model: 32 layers, 8 KV heads of 128 (from 4096 / 32): 128 KiB per token at f16. */
    static ObjectNode modelInfo() {
        ObjectNode i = EngineSimulator.JSON.createObjectNode();
        i.put("general.architecture", "llama");
        i.put("general.basename", "Sim-Llama-3");
        i.put("general.file_type", 15);
        i.put("general.parameter_count", 8_030_261_248L);
        i.put("general.quantization_version", 2);
        i.put("llama.attention.head_count", 32);
        i.put("llama.attention.head_count_kv", 8);
        i.put("llama.attention.layer_norm_rms_epsilon", 1e-5);
        i.put("llama.block_count", 32);
        i.put("llama.context_length", 131072);
        i.put("llama.embedding_length", 4096);
        i.put("llama.feed_forward_length", 14336);
        i.put("llama.rope.freq_base", 500000);
        i.put("llama.vocab_size", 128256);
        i.put("tokenizer.ggml.model", "gpt2");
        return i;
    }

    private void generate(HttpExchange x, boolean chat) throws IOException {
        JsonNode body = sim.readBody(x);
        String model = body.path("model").asText("");
        if (!sim.options().model().equals(model)) {
            sim.sendJson(x, 404, EngineSimulator.error("model \"" + model + "\" not found, try pulling it first"));
            return;
        }
        if (sim.drawError()) {
            sim.sendJson(x, 500, EngineSimulator.error("simulated server error"));
            return;
        }
        boolean stream = body.path("stream").asBoolean(true);
        int max = body.path("options").path("num_predict").asInt(-1);
        if (max <= 0) {
            max = 128;
        }
        if (runner != null) {
            viaRunner(x, body, chat, model, stream, max);
            return;
        }
        sim.generate(x, body, max, new EngineSimulator.TokenLines(x, stream, "application/x-ndjson") {
            @Override
            void streamed(String text) throws IOException {
                ObjectNode line = base(model);
                content(line, chat, text);
                line.put("done", false);
                write(out, line);
            }

            @Override
            public void finish(EngineSimulator.Outcome o) throws IOException {
                ObjectNode line = base(model);
                content(line, chat, stream ? "" : all.toString());
                line.put("done_reason", o.finishReason());
                line.put("done", true);
                if (!chat) {
                    line.putArray("context").add(1).add(2).add(3);
                }
                line.put("total_duration", o.totalNanos());
                line.put("load_duration", o.loadNanos());
                line.put("prompt_eval_count", o.promptTokens());
                line.put("prompt_eval_duration", o.promptNanos());
                line.put("eval_count", o.completionTokens());
                line.put("eval_duration", o.evalNanos());
                if (stream) {
                    write(out, line);
                } else {
                    sim.sendJson(x, 200, line);
                }
            }
        });
    }

    /**
     * Ollama's server side of a generation: load the runner if needed, POST the prompt to its {@code /completion}
     * (streamed), and turn each event into an NDJSON line; the runner's stop event gives the final line's counters
     * ({@code prompt_eval_count} = {@code cache_n + prompt_n}, {@code prompt_eval_cached_count} = {@code cache_n}). The
     * response headers go out with the first line, as Ollama's server sends them. A client that goes away closes the
     * runner's stream, so the runner stops generating and frees its slot.
     */
    private void viaRunner(HttpExchange x, JsonNode body, boolean chat, String model, boolean stream, int max)
            throws IOException {
        long received = System.nanoTime();
        long loadNanos;
        try {
            loadNanos = runner.ensure();
        } catch (IOException e) {
            sim.sendJson(x, 500, EngineSimulator.error("llama runner process has terminated: " + e.getMessage()));
            return;
        }
        ObjectNode req = EngineSimulator.JSON.createObjectNode();
        req.put("prompt", prompt(body, chat));
        req.put("n_predict", max);
        req.put("stream", true);
        req.put("cache_prompt", true);
        sim.activeDelta(1);
        try (InputStream events = open(req)) {
            if (events == null) {
                sim.sendJson(x, 500, EngineSimulator.error("llama runner process has terminated"));
                return;
            }
            OutputStream out = null;
            StringBuilder all = new StringBuilder();
            java.io.BufferedInputStream in = new java.io.BufferedInputStream(events);
            for (String line; (line = line(in)) != null; ) {
                if (!line.startsWith("data: ")) {
                    continue;
                }
                JsonNode ev = EngineSimulator.JSON.readTree(line.substring(6));
                String text = ev.path("content").asText("");
                if (!ev.path("stop").asBoolean(false)) {
                    if (text.isEmpty()) {
                        continue;
                    }
                    if (!stream) {
                        all.append(text);
                        continue;
                    }
                    if (out == null) {
                        out = startStream(x);
                    }
                    ObjectNode l = base(model);
                    content(l, chat, text);
                    l.put("done", false);
                    write(out, l);
                    continue;
                }
                JsonNode t = ev.path("timings");
                long cached = t.path("cache_n").asLong(0);
                ObjectNode last = base(model);
                content(last, chat, stream ? text : all.append(text).toString());
                last.put("done_reason", "limit".equals(ev.path("stop_type").asText()) ? "length" : "stop");
                last.put("done", true);
                if (!chat) {
                    last.putArray("context").add(1).add(2).add(3);
                }
                last.put("total_duration", System.nanoTime() - received);
                last.put("load_duration", loadNanos);
                last.put("prompt_eval_count", cached + t.path("prompt_n").asLong(0));
                last.put("prompt_eval_cached_count", cached);
                last.put("prompt_eval_duration", (long) (t.path("prompt_ms").asDouble(0) * 1e6));
                last.put("eval_count", t.path("predicted_n").asLong(0));
                last.put("eval_duration", (long) (t.path("predicted_ms").asDouble(0) * 1e6));
                if (!stream) {
                    sim.sendJson(x, 200, last);
                    return;
                }
                if (out == null) {
                    out = startStream(x);
                }
                write(out, last);
                return;
            }
            if (out == null) {
                sim.sendJson(x, 500, EngineSimulator.error("llama runner process has terminated"));
            } else {
                write(out, EngineSimulator.error("llama runner process has terminated"));
            }
        } finally {
            sim.activeDelta(-1);
        }
    }

    /** The runner's event stream for {@code req}, or null when it answered with an error status. */
    private InputStream open(ObjectNode req) throws IOException {
        java.net.http.HttpResponse<InputStream> r = runner.post("/completion", EngineSimulator.JSON.writeValueAsBytes(req));
        if (r.statusCode() != 200) {
            r.body().close();
            return null;
        }
        return r.body();
    }

    private static OutputStream startStream(HttpExchange x) throws IOException {
        x.getResponseHeaders().set("Content-Type", "application/x-ndjson");
        x.sendResponseHeaders(200, 0);
        return x.getResponseBody();
    }

    /** One line (LF or CRLF ended) of at most {@link #MAX_RUNNER_LINE} bytes, or null at the end of the stream. */
    private static String line(java.io.BufferedInputStream in) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(256);
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (b.size() >= MAX_RUNNER_LINE) {
                throw new IOException("runner event longer than " + MAX_RUNNER_LINE + " bytes");
            }
            b.write(c);
        }
        if (c < 0 && b.size() == 0) {
            return null;
        }
        String s = b.toString(StandardCharsets.UTF_8);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** The prompt Ollama's server would render: the prompt, or the messages' contents one a line. */
    private static String prompt(JsonNode body, boolean chat) {
        if (!chat) {
            return body.path("prompt").asText("");
        }
        StringBuilder p = new StringBuilder();
        for (JsonNode m : body.path("messages")) {
            p.append(m.path("content").asText("")).append('\n');
        }
        return p.toString();
    }

    private static ObjectNode base(String model) {
        ObjectNode n = EngineSimulator.JSON.createObjectNode();
        n.put("model", model);
        n.put("created_at", Instant.now().toString());
        return n;
    }

    private static void content(ObjectNode line, boolean chat, String text) {
        if (chat) {
            line.putObject("message").put("role", "assistant").put("content", text);
        } else {
            line.put("response", text);
        }
    }

    private static void write(OutputStream out, ObjectNode line) throws IOException {
        out.write((line.toString() + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
