package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * Ollama's native API as the simulator serves it: GET /, /api/version, /api/tags, /api/ps,
 * POST /api/show, streaming NDJSON /api/chat and /api/generate (final line with the nanosecond
 * counters), and the OpenAI-compatible /v1 routes Ollama also offers.
 *
 * <p>A loaded model stays loaded for its keep-alive after its last request ends (the request's {@code keep_alive}:
 * seconds as a number, or a duration string such as {@code "5m"}; negative: for ever; 0: unload at once; absent:
 * {@link #keepAlive(Duration) the server's default}, 5 minutes), then is unloaded (the runner process stopped):
 * {@code /api/ps} shows it with that {@code expires_at} until then and drops it at that time. A request without a
 * prompt (no messages for /api/chat) only loads the model, or with {@code keep_alive} 0 unloads it, as Ollama does.
 */
public final class OllamaWire implements EngineSimulator.Wire, AutoCloseable {
    static final String VERSION = "0.12.6";
    static final long SIZE = 4_920_753_328L;
    static final int CONTEXT = 4096;

    /** How long Ollama keeps a model loaded after its last request (OLLAMA_KEEP_ALIVE's default). */
    static final long KEEP_ALIVE_MILLIS = 5 * 60_000L;
    /** The expires_at of a model kept for ever (a negative keep_alive). */
    static final String FOREVER = "2318-08-07T00:00:00Z";
    /** Bound on one event line read from the runner. */
    static final int MAX_RUNNER_LINE = 1 << 20;

    private final EngineSimulator sim;
    private final OpenAiWire openai;
    /** The runner child that generates (null: this process generates, as the Ollama of 2025 did in-process). */
    private final OllamaRunner runner;

    /** Guards {@link #inFlight} and {@link #expiresAtMillis}. */
    private final Object life = new Object();
    private int inFlight;
    /** When the loaded model will be unloaded (epoch millis); {@link Long#MAX_VALUE}: never; 0: nothing loaded. */
    private long expiresAtMillis;
    private volatile Duration keepAlive = Duration.ofMillis(KEEP_ALIVE_MILLIS);
    private final java.util.concurrent.ScheduledExecutorService timer =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "tailwatch-sim-keepalive");
                t.setDaemon(true);
                return t;
            });

    OllamaWire(EngineSimulator sim, OllamaRunner runner) {
        this.sim = sim;
        this.openai = new OpenAiWire(sim);
        this.runner = runner;
    }

    /** The simulator is up: an in-process model loaded at start is idle from now. */
    void started() {
        if (runner == null && sim.loaded()) {
            idleFrom(keepAlive);
        }
    }

    /**
     * The keep-alive of requests that set none (OLLAMA_KEEP_ALIVE; 5 minutes unless set); an idle loaded model
     * expires {@code d} from now.
     */
    public OllamaWire keepAlive(Duration d) {
        keepAlive = java.util.Objects.requireNonNull(d, "keep-alive");
        synchronized (life) {
            if (inFlight == 0 && expiresAtMillis != 0) {
                idleFrom(d);
            }
        }
        return this;
    }

    private boolean modelLoaded() {
        return runner != null ? runner.loaded() : sim.loaded();
    }

    private void begin() {
        synchronized (life) {
            inFlight++;
        }
    }

    /** A request ended: the model stays for {@code ka} from now (0: unloaded at once). */
    private void end(Duration ka) {
        synchronized (life) {
            inFlight--;
            if (modelLoaded()) {
                idleFrom(ka);
            }
        }
    }

    private void idleFrom(Duration ka) {
        synchronized (life) {
            if (ka.isNegative()) {
                expiresAtMillis = Long.MAX_VALUE;
                return;
            }
            long at = System.currentTimeMillis() + ka.toMillis();
            expiresAtMillis = at;
            if (ka.isZero()) {
                expire();
            } else {
                timer.schedule(this::expire, ka.toMillis() + 1, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Unloads the model when its time has come and no request uses it (an earlier timer of a moved expiry does nothing). */
    private void expire() {
        synchronized (life) {
            if (inFlight > 0 || expiresAtMillis == 0 || System.currentTimeMillis() < expiresAtMillis) {
                return;
            }
            expiresAtMillis = 0;
            if (runner != null) {
                runner.unload();
            } else {
                sim.unloadModel();
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
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
        long expires;
        synchronized (life) {
            expires = expiresAtMillis == 0 || inFlight > 0 ? System.currentTimeMillis() + keepAlive.toMillis()
                    : expiresAtMillis;
        }
        if (modelLoaded()) {
            ObjectNode m = models.addObject();
            String name = sim.options().model();
            m.put("name", name);
            m.put("model", name);
            m.put("size", SIZE + 1_073_741_824L);
            m.put("digest", digest());
            m.set("details", details());
            // kept for ever: Ollama writes a date centuries ahead
            m.put("expires_at", expires == Long.MAX_VALUE ? FOREVER : Instant.ofEpochMilli(expires).toString());
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
        Duration ka;
        try {
            ka = keepAliveOf(body.get("keep_alive"));
        } catch (IllegalArgumentException e) {
            sim.sendJson(x, 400, EngineSimulator.error(e.getMessage()));
            return;
        }
        boolean stream = body.path("stream").asBoolean(true);
        int max = body.path("options").path("num_predict").asInt(-1);
        if (max <= 0) {
            max = 128;
        }
        begin();
        try {
            if (chat ? body.path("messages").isEmpty() : body.path("prompt").asText("").isEmpty()) {
                loadOrUnload(x, chat, model, ka);
            } else if (runner != null) {
                viaRunner(x, body, chat, model, stream, max);
            } else {
                inProcess(x, body, chat, model, stream, max);
            }
        } finally {
            end(ka);
        }
    }

    /** A request without a prompt: loads the model (done_reason load), or with keep_alive 0 unloads it (unload). */
    private void loadOrUnload(HttpExchange x, boolean chat, String model, Duration ka) throws IOException {
        if (!ka.isZero()) {
            try {
                if (runner != null) {
                    runner.ensure();
                } else {
                    sim.loadModel();
                }
            } catch (IOException e) {
                sim.sendJson(x, 500, EngineSimulator.error("llama runner process has terminated: " + e.getMessage()));
                return;
            }
        }
        ObjectNode line = base(model);
        content(line, chat, "");
        line.put("done", true);
        line.put("done_reason", ka.isZero() ? "unload" : "load");
        sim.sendJson(x, 200, line);
    }

    /**
     * A request's {@code keep_alive} as Ollama reads it: a number of seconds, or a Go duration string ({@code "5m"},
     * {@code "1h30m"}, {@code "500ms"}); negative: for ever; absent: the server's default.
     */
    Duration keepAliveOf(JsonNode n) {
        if (n == null || n.isNull()) {
            return keepAlive;
        }
        if (n.isNumber()) {
            double sec = n.asDouble();
            return sec < 0 ? Duration.ofSeconds(-1) : Duration.ofNanos((long) Math.min(sec * 1e9, 1e18));
        }
        java.util.regex.Matcher m = GO_DURATION.matcher(n.asText(""));
        if (!n.isTextual() || !m.matches()) {
            String v = n.toString();
            throw new IllegalArgumentException("time: invalid duration " + (v.length() <= 64 ? v : v.substring(0, 64) + "..."));
        }
        double nanos = 0;
        java.util.regex.Matcher part = GO_PART.matcher(m.group(2));
        while (part.find()) {
            double v = Double.parseDouble(part.group(1));
            nanos += v * switch (part.group(2)) {
                case "ns" -> 1;
                case "us", "\u00b5s" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                default -> 3600e9;
            };
        }
        if ("-".equals(m.group(1)) && nanos > 0) {
            return Duration.ofSeconds(-1);
        }
        return Duration.ofNanos((long) Math.min(nanos, 1e18));
    }

    private static final java.util.regex.Pattern GO_DURATION =
            java.util.regex.Pattern.compile("([-+]?)((?:[0-9]+(?:\\.[0-9]*)?(?:ns|us|\u00b5s|ms|s|m|h))+|0)");
    private static final java.util.regex.Pattern GO_PART =
            java.util.regex.Pattern.compile("([0-9]+(?:\\.[0-9]*)?)(ns|us|\u00b5s|ms|s|m|h)");

    private void inProcess(HttpExchange x, JsonNode body, boolean chat, String model, boolean stream, int max)
            throws IOException {
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
