package io.tailwatch.tools.sim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.probe.EngineFlavor;

/**
 * A fake LLM engine speaking the real wire formats, for fire drills, demos and tests. Generation
 * is timed exactly: after a slot takes the request (response headers go out only then, as with
 * mlx_lm.server), the first token follows after {@code ttft} and every further one at a multiple of
 * 1/tokens-per-second. With one slot, requests queue serially. Faults (HTTP 500, mid-stream stalls)
 * are drawn from a seeded random source. The API-specific parts live in {@link OllamaWire} and
 * {@link OpenAiWire}.
 */
public final class EngineSimulator implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    static {
        // Every token is a small write: without TCP_NODELAY, Nagle's algorithm holds a token until the
        // client's (delayed) ACK of the previous one, bunching tokens and skewing every timing.
        // Read once when the JDK server classes initialise, so set it before the first server starts.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    private static final int MAX_BODY = 1 << 20;
    private static final int MAX_WAITING = 512;
    private static final int MAX_RECORDED = 64;
    private static final String[] WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
            "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
            "twenty", "über", "naïve", "日本"};

    private final String api;
    private volatile String flavor = "mlx_lm";
    /** The bearer token every request but the open ones must carry (null: none), as llama-server --api-key. */
    private volatile String requiredKey;
    private final SimulatorOptions options;
    private final HttpServer server;
    /** The Ollama flavour's runner child (null: the simulator generates in-process). */
    private volatile OllamaRunner runner;
    /** The batching mlx_lm flavour's HTTP/1.0 server (then {@code server} is null). */
    private volatile Http10Server http10;
    private final ThreadPoolExecutor executor;
    private final Semaphore slots;
    /** The batching flavour's admission into its batch (null for the serial servers). */
    private final BatchAdmission batch;
    /** The model the batching flavour holds in memory (null after an unknown name dropped it). */
    private volatile String currentModel;
    private final AtomicLong modelLoads = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger maxActive = new AtomicInteger();
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final Random random;
    /** Generations counted for the fixed stall schedule. */
    private long generationsScheduled;
    private final Deque<JsonNode> recorded = new ArrayDeque<>();
    private final Object loadLock = new Object();
    private volatile boolean loaded;
    private final long startedNanos = System.nanoTime();
    private final List<Generation> generations = new ArrayList<>();

    /**
     * Server-side timing of one generation (System.nanoTime, taken just before each write), for
     * accuracy benchmarks in the same JVM.
     */
    public record Generation(long receivedAt, long headersAt, long firstTokenAt, long lastTokenAt, int tokens) {
    }

    private EngineSimulator(String api, SimulatorOptions options, HttpServer server, ThreadPoolExecutor executor) {
        this.api = api;
        this.options = options;
        this.server = server;
        this.executor = executor;
        this.slots = new Semaphore(options.slots(), true);
        this.batch = options.batching() ? new BatchAdmission(options.batch()) : null;
        this.currentModel = options.model();
        this.random = new Random(options.seed());
    }

    /**
     * Starts a simulator of {@code api} (ollama or openai) on {@code host:port} (port 0 = any free
     * port; read it back with {@link #port()}).
     */
    public static EngineSimulator start(String api, String host, int port, SimulatorOptions options) throws IOException {
        return start(api, "ollama".equals(api) ? "ollama" : "mlx_lm", host, port, options);
    }

    /**
     * The OpenAI-compatible engines, each answering its own identity endpoints (for discovery): the kinds of
     * {@link EngineFlavor} that speak the OpenAI API, but for the generic one.
     */
    public static final java.util.List<String> FLAVORS = java.util.Arrays.stream(EngineFlavor.values())
            .filter(f -> f.api() == EngineApi.OPENAI && f != EngineFlavor.OPENAI).map(EngineFlavor::kind).toList();

    /**
     * Starts a simulator whose identity endpoints are those of {@code flavor}: for api openai one of
     * {@link #FLAVORS} (llama.cpp adds GET /props, LM Studio GET /api/v0/models, vLLM GET /version and
     * owned_by "vllm"); for api ollama, "ollama".
     */
    public static EngineSimulator start(String api, String flavor, String host, int port, SimulatorOptions options)
            throws IOException {
        return start(api, flavor, host, port, options, null);
    }

    /**
     * Ollama as it runs today: {@code ollama serve} answering the Ollama API and generating nothing itself; on the
     * first request for the model it starts a runner child process ({@code runner}: the real llama-server, or
     * {@link RunnerSpec#simulated the simulator's look-alike}) with Ollama's command line and proxies generation to
     * the runner's {@code /completion}, turning its events into NDJSON. The runner is stopped with the simulator.
     */
    public static EngineSimulator startOllama(String host, int port, SimulatorOptions options, RunnerSpec runner)
            throws IOException {
        return start("ollama", "ollama", host, port, options, java.util.Objects.requireNonNull(runner, "runner"));
    }

    private static EngineSimulator start(String api, String flavor, String host, int port, SimulatorOptions options,
                                         RunnerSpec runnerSpec) throws IOException {
        if (!"ollama".equals(api) && !"openai".equals(api)) {
            throw new IllegalArgumentException("api must be ollama or openai");
        }
        if ("openai".equals(api) ? !FLAVORS.contains(flavor) : !"ollama".equals(flavor)) {
            throw new IllegalArgumentException("flavor must be one of " + FLAVORS + " for api openai, ollama for api ollama");
        }
        if (options.batching() && !"mlx_lm".equals(flavor)) {
            throw new IllegalArgumentException("only the mlx_lm flavour batches (decode concurrency); the others have slots");
        }
        boolean http10 = options.batching();
        HttpServer server = http10 ? null : HttpServer.create(new InetSocketAddress(host, port), 64);
        ThreadPoolExecutor ex = new ThreadPoolExecutor(2, 128, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "tailwatch-sim");
            t.setDaemon(true);
            return t;
        });
        EngineSimulator sim = new EngineSimulator(api, options, server, ex);
        sim.flavor = flavor;
        sim.runner = runnerSpec == null ? null : new OllamaRunner(runnerSpec);
        Wire wire = "ollama".equals(api) ? new OllamaWire(sim, sim.runner)
                : "vllm_mlx".equals(flavor) ? new VllmMlxWire(sim, new OpenAiWire(sim))
                : "lmstudio".equals(flavor) ? new LmStudioWire(sim, new OpenAiWire(sim)) : new OpenAiWire(sim);
        sim.wire = wire;
        com.sun.net.httpserver.HttpHandler handler = x -> {
            sim.count(x.getRequestURI().getPath());
            try (x) {
                if (sim.refusesKey(x)) {
                    // llama-server's answer to a missing or wrong key
                    sim.sendJson(x, 401, codedError(401, "Invalid API Key", "authentication_error"));
                    return;
                }
                wire.handle(x);
            } catch (IOException e) {
                // The client went away mid-response: nothing to do.
            } catch (RuntimeException e) {
                try {
                    sim.sendJson(x, 500, error("simulator fault: " + e.getClass().getSimpleName()));
                } catch (IOException ignored) {
                    // already answering
                }
            }
        };
        if (http10) {
            sim.http10 = Http10Server.start(host, port, ex, x -> {
                try {
                    handler.handle(x);
                } catch (IOException e) {
                    // the client went away
                }
            });
        } else {
            server.setExecutor(ex);
            server.createContext("/", handler);
            server.start();
        }
        if ("openai".equals(api) && options.loadTime().toNanos() > 0) {
            Thread t = new Thread(() -> {
                sleepUntil(System.nanoTime() + options.loadTime().toNanos());
                sim.loaded = true;
            }, "tailwatch-sim-load");
            t.setDaemon(true);
            t.start();
        } else if ("openai".equals(api) || options.loadTime().isZero()) {
            sim.loaded = true;
        }
        if (wire instanceof OllamaWire o) {
            o.started();
        }
        return sim;
    }

    /** The wire answering requests; a flavour's own controls are reached through {@link #wire(Class)}. */
    private volatile Wire wire;

    /** The flavour's wire as {@code type} (e.g. {@link VllmMlxWire}); a ClassCastException for another flavour. */
    public <T> T wire(Class<T> type) {
        return type.cast(wire);
    }

    /** Requests waiting for a slot now. */
    int waitingNow() {
        return waiting.get();
    }

    /** Requests generating now. */
    int activeNow() {
        return active.get();
    }

    public int port() {
        Http10Server h = http10;
        return h != null ? h.port() : server.getAddress().getPort();
    }

    /**
     * From now on, every request must carry {@code Authorization: Bearer key}, except the ones the engine
     * leaves open ({@code /health}; vLLM's {@code /version}); others are answered HTTP 401.
     */
    public EngineSimulator requireKey(String key) {
        this.requiredKey = key;
        return this;
    }

    private boolean refusesKey(HttpExchange x) {
        String key = requiredKey;
        if (key == null) {
            return false;
        }
        String path = x.getRequestURI().getPath();
        if (path.equals("/health") || "vllm".equals(flavor) && path.equals("/version")) {
            return false;
        }
        return !("Bearer " + key).equals(x.getRequestHeaders().getFirst("Authorization"));
    }

    public String api() {
        return api;
    }

    /** Which engine's identity endpoints it answers: ollama, mlx_lm, llamacpp, lmstudio or vllm. */
    public String flavor() {
        return flavor;
    }

    public SimulatorOptions options() {
        return options;
    }

    boolean loaded() {
        return loaded;
    }

    /** True for the continuous-batching mlx_lm.server of 0.28 and later. */
    boolean batching() {
        return batch != null;
    }

    /** How many times the batching flavour loaded a model other than the one it held (swaps; the start-up load not counted). */
    public long modelLoads() {
        return modelLoads.get();
    }

    /** The model the batching flavour holds now (the one it was started with until a request named another). */
    public String currentModel() {
        return currentModel;
    }

    /** The in-process Ollama flavour: the keep-alive ran out, so the model is unloaded (the next request loads it). */
    void unloadModel() {
        synchronized (loadLock) {
            loaded = false;
        }
    }

    /** The in-process Ollama flavour: loads the model now when it is not loaded (a request without a prompt). */
    void loadModel() {
        synchronized (loadLock) {
            if (!loaded) {
                sleepUntil(System.nanoTime() + options.loadTime().toNanos());
                loaded = true;
            }
        }
    }

    /** The batching flavour: a request named a model it does not know; it has dropped the one it held. */
    void dropModel() {
        currentModel = null;
    }

    /** Requests generating right now (the busy slots). */
    int active() {
        return active.get();
    }

    /** The Ollama flavour's runner: a request starts or ends generating there. */
    void activeDelta(int d) {
        int now = active.addAndGet(d);
        maxActive.accumulateAndGet(now, Math::max);
        if (d > 0) {
            served.incrementAndGet();
        }
    }

    /** Requests per path (at most {@link #MAX_PATHS} paths counted; later new paths are not). */
    private final java.util.concurrent.ConcurrentHashMap<String, AtomicLong> hits = new java.util.concurrent.ConcurrentHashMap<>();
    private static final int MAX_PATHS = 64;

    void count(String path) {
        AtomicLong n = hits.get(path);
        if (n == null && hits.size() < MAX_PATHS) {
            n = hits.computeIfAbsent(path, k -> new AtomicLong());
        }
        if (n != null) {
            n.incrementAndGet();
        }
    }

    /** How many requests asked for {@code path} so far (any method). */
    public long hits(String path) {
        AtomicLong n = hits.get(path);
        return n == null ? 0 : n.get();
    }

    /** Requests that reached generation so far. */
    public long served() {
        return served.get();
    }

    /** The most requests generating at the same time so far (never above the slot count). */
    public int maxConcurrent() {
        return maxActive.get();
    }

    /** The last request bodies (bounded), newest last. */
    /** Generations stopped because the client closed the stream before the last token. */
    public long cancelled() {
        return cancelled.get();
    }

    public synchronized List<JsonNode> requests() {
        return List.copyOf(recorded);
    }

    /** Server-side timings of completed generations (bounded), oldest first. */
    public synchronized List<Generation> generations() {
        return List.copyOf(generations);
    }

    /** The Ollama flavour's runner process id, or -1 (no runner loaded, or a flavour without runners). */
    public long runnerPid() {
        OllamaRunner r = runner;
        return r == null ? -1 : r.pid();
    }

    /** The Ollama flavour's runner port, or -1 (no runner loaded, or a flavour without runners). */
    public int runnerPort() {
        OllamaRunner r = runner;
        return r == null ? -1 : r.port();
    }

    @Override
    public void close() {
        if (wire instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                // nothing held past the simulator
            }
        }
        OllamaRunner r = runner;
        if (r != null) {
            r.close();
        }
        Http10Server h = http10;
        if (h != null) {
            h.close();
        } else {
            server.stop(0);
        }
        executor.shutdownNow();
    }

    // ---- shared machinery for the wires ----

    /** The API-specific request handling. */
    interface Wire {
        void handle(HttpExchange x) throws IOException;
    }

    /** Receives a generation as it happens; the wire turns it into bytes. */
    interface Emitter {
        void start() throws IOException;

        void waiting(int step, int steps) throws IOException;

        void token(int index, String text) throws IOException;

        void finish(Outcome outcome) throws IOException;
    }

    /**
     * An answer streamed as one line or event per token (headers when a slot takes the request, nothing during
     * prefill), or sent whole at the end with the tokens gathered in {@link #all}.
     */
    abstract static class TokenLines implements Emitter {
        final HttpExchange x;
        final boolean stream;
        private final String contentType;
        final StringBuilder all = new StringBuilder();
        OutputStream out;

        TokenLines(HttpExchange x, boolean stream, String contentType) {
            this.x = x;
            this.stream = stream;
            this.contentType = contentType;
        }

        @Override
        public void start() throws IOException {
            if (stream) {
                x.getResponseHeaders().set("Content-Type", contentType);
                x.sendResponseHeaders(200, 0);
                out = x.getResponseBody();
            }
        }

        @Override
        public void waiting(int step, int steps) throws IOException {
            // Ollama and llama-server's /completion send nothing while they load or evaluate the prompt.
        }

        @Override
        public void token(int index, String text) throws IOException {
            if (stream) {
                streamed(text);
            } else {
                all.append(text);
            }
        }

        /** Writes one token's line or event. */
        abstract void streamed(String text) throws IOException;
    }

    /**
     * What a generation did, in the units the wires report; {@code firstTokenNanos}: from the request's arrival to
     * its first token.
     */
    record Outcome(int promptTokens, int completionTokens, String finishReason, long totalNanos, long loadNanos,
                   long promptNanos, long evalNanos, long firstTokenNanos) {
    }

    JsonNode readBody(HttpExchange x) throws IOException {
        try (InputStream in = x.getRequestBody()) {
            byte[] b = in.readNBytes(MAX_BODY + 1);
            if (b.length > MAX_BODY) {
                throw new IOException("request body too large");
            }
            JsonNode n = b.length == 0 ? JSON.createObjectNode() : JSON.readTree(b);
            synchronized (this) {
                recorded.addLast(n);
                while (recorded.size() > MAX_RECORDED) {
                    recorded.removeFirst();
                }
            }
            return n;
        }
    }

    /** Ollama's and mlx_lm's error body: {@code {"error": message}}. */
    static com.fasterxml.jackson.databind.node.ObjectNode error(String message) {
        return JSON.createObjectNode().put("error", message);
    }

    /** llama-server's error body: {@code {"error": {"code": .., "message": .., "type": ..}}}. */
    static com.fasterxml.jackson.databind.node.ObjectNode codedError(int code, String message, String type) {
        com.fasterxml.jackson.databind.node.ObjectNode root = JSON.createObjectNode();
        root.putObject("error").put("code", code).put("message", message).put("type", type);
        return root;
    }

    /** Sends {@code json} serialised by Jackson (compact, UTF-8). */
    void sendJson(HttpExchange x, int status, JsonNode json) throws IOException {
        sendJson(x, status, JSON.writeValueAsString(json));
    }

    /** Sends {@code json} as it is; only the empty body of mlx_lm's hub-less model list is given as a string. */
    void sendJson(HttpExchange x, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        x.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            try (OutputStream o = x.getResponseBody()) {
                o.write(b);
            }
        }
    }

    void sendText(HttpExchange x, int status, String text) throws IOException {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        x.sendResponseHeaders(status, b.length);
        try (OutputStream o = x.getResponseBody()) {
            o.write(b);
        }
    }

    synchronized boolean drawError() {
        return options.errorRate() > 0 && random.nextDouble() < options.errorRate();
    }

    /** The token before which this generation stalls, or -1: on the fixed schedule when there is one, else drawn. */
    synchronized int drawStall(int tokens) {
        if (options.stallEvery() > 0) {
            long n = ++generationsScheduled;
            return n % options.stallEvery() == 0 && tokens >= 2 ? tokens / 2 : -1;
        }
        if (options.stallRate() <= 0 || tokens < 2 || random.nextDouble() >= options.stallRate()) {
            return -1;
        }
        return 1 + random.nextInt(tokens - 1);
    }

    static int promptTokens(JsonNode body) {
        int words = 0;
        for (JsonNode m : body.path("messages")) {
            words += countWords(m.path("content").asText(""));
        }
        words += countWords(body.path("prompt").asText(""));
        return Math.max(1, words);
    }

    private static int countWords(String s) {
        String t = s.trim();
        return t.isEmpty() ? 0 : t.split("\\s+").length;
    }

    static String word(int i) {
        return " " + WORDS[i % WORDS.length];
    }

    long uptimeNanos() {
        return System.nanoTime() - startedNanos;
    }

    /**
     * Queues for a slot, then generates {@code maxTokens} tokens through {@code emitter}. Returns
     * false (and sends 503) when too many requests already wait.
     */
    boolean generate(HttpExchange x, JsonNode body, int maxTokens, Emitter emitter) throws IOException {
        return generate(x, body, maxTokens, emitter, options.model());
    }

    /**
     * As {@link #generate(HttpExchange, JsonNode, int, Emitter)}; the batching flavour admits the request into
     * the running batch only when its {@code model} string equals the batch's (absent: ""), and generates
     * with {@code model} (loading it first when it holds another).
     */
    boolean generate(HttpExchange x, JsonNode body, int maxTokens, Emitter emitter, String model) throws IOException {
        long received = System.nanoTime();
        if (waiting.incrementAndGet() > MAX_WAITING) {
            waiting.decrementAndGet();
            sendJson(x, 503, error("server busy, please try again.  maximum pending requests exceeded"));
            return false;
        }
        String key = body.path("model").isTextual() ? body.path("model").asText() : "";
        try {
            if (batch != null) {
                batch.admit(key, () -> loaded);
            } else {
                slots.acquire();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            waiting.decrementAndGet();
            return false;
        }
        waiting.decrementAndGet();
        int now = active.incrementAndGet();
        maxActive.accumulateAndGet(now, Math::max);
        served.incrementAndGet();
        try {
            long headersAt = System.nanoTime();
            emitter.start();
            long loadNanos = batch != null ? swapTo(model) : load(emitter);
            long afterLoad = System.nanoTime();
            // TTFT counts from the slot taking the request, or from the end of a real load.
            long prefillStart = afterLoad - headersAt > 1_000_000L ? afterLoad : headersAt;
            long first = prefillStart + options.ttft().toNanos();
            keepAliveUntil(emitter, first);
            int stallAt = drawStall(maxTokens);
            long interval = (long) (1e9 / options.tokensPerSecond());
            long target = first;
            long firstAt = 0;
            long lastAt = 0;
            for (int i = 0; i < maxTokens; i++) {
                if (i > 0) {
                    target += interval;
                }
                if (i == stallAt) {
                    target += options.stall().toNanos();
                }
                long at = System.nanoTime();
                if (at - target > 1_000_000L) {
                    target = at; // running late (a GC, a busy CPU): carry on at pace rather than burst to catch up
                }
                sleepUntil(target);
                // Recorded as the token is handed to the socket: what a client could see at the earliest.
                lastAt = System.nanoTime();
                if (i == 0) {
                    firstAt = lastAt;
                }
                try {
                    emitter.token(i, word(i));
                } catch (IOException e) {
                    // The client closed the stream: a real engine stops generating here.
                    cancelled.incrementAndGet();
                    throw e;
                }
            }
            long end = System.nanoTime();
            // Recorded before the final chunk goes out, so a client that has read the whole answer finds it here.
            synchronized (this) {
                generations.add(new Generation(received, headersAt, firstAt, lastAt, maxTokens));
                if (generations.size() > 1000) {
                    generations.remove(0);
                }
            }
            emitter.finish(new Outcome(promptTokens(body), maxTokens, "length", end - received, loadNanos,
                    firstAt - prefillStart, (lastAt - firstAt) + interval, firstAt - received));
            return true;
        } finally {
            active.decrementAndGet();
            if (batch != null) {
                batch.leave();
            } else {
                slots.release();
            }
        }
    }

    /**
     * The batching flavour holds one model: a request for another (its batch has drained: the strings
     * differ) drops it and loads that one, taking the load time.
     */
    private long swapTo(String model) {
        if (model.equals(currentModel)) {
            return 0;
        }
        long start = System.nanoTime();
        synchronized (loadLock) {
            if (!model.equals(currentModel)) {
                sleepUntil(start + Math.max(options.loadTime().toNanos(), 50_000_000L));
                currentModel = model;
                modelLoads.incrementAndGet();
            }
        }
        return System.nanoTime() - start;
    }

    /**
     * mlx_lm.server's admission since 0.28.4: first come, first served, up to {@code capacity} requests in
     * the batch at once, and only while their {@code model} strings equal the batch's; a request with another
     * string waits until the batch has drained, and the ones behind it wait too. Nothing is admitted while
     * the model loads at start.
     */
    static final class BatchAdmission {
        private final int capacity;
        private final Deque<Object> queue = new ArrayDeque<>();
        private String key;
        private int running;

        BatchAdmission(int capacity) {
            this.capacity = capacity;
        }

        synchronized void admit(String k, java.util.function.BooleanSupplier loaded) throws InterruptedException {
            Object me = new Object();
            queue.addLast(me);
            try {
                while (!(queue.peekFirst() == me && loaded.getAsBoolean()
                        && (running == 0 || k.equals(key) && running < capacity))) {
                    wait(20);
                }
            } catch (InterruptedException e) {
                queue.remove(me);
                notifyAll();
                throw e;
            }
            queue.removeFirst();
            if (running == 0) {
                key = k;
            }
            running++;
            notifyAll();
        }

        synchronized void leave() {
            running--;
            notifyAll();
        }
    }

    /** Ollama loads the model on first use; the OpenAI flavour waits for its start-up load. */
    private long load(Emitter emitter) throws IOException {
        long start = System.nanoTime();
        if ("ollama".equals(api)) {
            synchronized (loadLock) {
                if (!loaded) {
                    sleepUntil(start + options.loadTime().toNanos());
                    loaded = true;
                    return System.nanoTime() - start;
                }
            }
            return 2_000_000L; // a warm Ollama still reports a few ms of load_duration
        }
        int step = 0;
        while (!loaded) {
            emitter.waiting(++step, 0);
            sleepUntil(System.nanoTime() + 50_000_000L);
        }
        return System.nanoTime() - start;
    }

    /** Prefill: SSE servers send comment keep-alives meanwhile (mlx_lm: ": keepalive N/M"). */
    private static void keepAliveUntil(Emitter emitter, long until) throws IOException {
        long step = 250_000_000L;
        int steps = (int) Math.max(1, (until - System.nanoTime()) / step);
        int i = 0;
        while (until - System.nanoTime() > step) {
            emitter.waiting(++i, steps);
            sleepUntil(Math.min(until, System.nanoTime() + step));
        }
    }

    static void sleepUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            if (left > 200_000L) {
                LockSupport.parkNanos(left - 100_000L);
            } else {
                Thread.onSpinWait();
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }
}
