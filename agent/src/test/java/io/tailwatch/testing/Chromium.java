package io.tailwatch.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's headless Chromium, driven over the DevTools protocol on a loopback websocket with the JDK's
 * own client: navigate, evaluate script in the page, resize the viewport, take screenshots, and collect
 * every console error, uncaught exception and Content-Security-Policy report. Skips the test when
 * chromium is missing unless TAILWATCH_REQUIRE_CHROMIUM=1 (CI). Never downloads anything: the flags
 * turn off every background request the browser would make.
 */
public final class Chromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://\\S+)");
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<String> problems = new CopyOnWriteArrayList<>();

    private Chromium(Process process, Path profile, WebSocket socket) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
    }

    public static String path() {
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        if ("1".equals(System.getenv("TAILWATCH_REQUIRE_CHROMIUM"))) {
            throw new AssertionError("chromium is required (TAILWATCH_REQUIRE_CHROMIUM=1) but not on PATH");
        }
        assumeTrue(false, "chromium not installed (apt-get install chromium)");
        return null;
    }

    /** Starts a fresh headless browser (its own temporary profile) and attaches to its first tab. */
    public static Chromium start() throws IOException, InterruptedException {
        String exe = path();
        Path profile = Files.createTempDirectory("tailwatch-chromium");
        List<String> cmd = new ArrayList<>(List.of(exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
                "--user-data-dir=" + profile, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                "--window-size=1366,900", "about:blank"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> browserWs = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                String line;
                while ((line = err.readLine()) != null) {
                    Matcher m = DEVTOOLS.matcher(line);
                    if (m.find()) {
                        browserWs.complete(m.group(1));
                    }
                }
            } catch (IOException e) {
                // the browser exited
            }
            browserWs.completeExceptionally(new AssertionError("chromium exited before DevTools listened"));
        }, "chromium-output");
        reader.setDaemon(true);
        reader.start();
        String ws;
        try {
            ws = browserWs.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not start: " + e, e);
        }
        URI browser = URI.create(ws);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String list = http.send(HttpRequest.newBuilder(URI.create("http://" + browser.getAuthority() + "/json/list"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        String pageWs = null;
        for (JsonNode t : JSON.readTree(list)) {
            if (t.path("type").asText().equals("page")) {
                pageWs = t.path("webSocketDebuggerUrl").asText();
                break;
            }
        }
        if (pageWs == null) {
            p.destroyForcibly();
            throw new AssertionError("no page target in " + list);
        }
        Chromium[] self = new Chromium[1];
        Listener listener = new Listener(() -> self[0]);
        WebSocket socket = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create(pageWs), listener).join();
        self[0] = new Chromium(p, profile, socket);
        self[0].call("Page.enable", null);
        self[0].call("Runtime.enable", null);
        self[0].call("Log.enable", null);
        return self[0];
    }

    /** Sends one DevTools command and waits for its result; a protocol error fails the test. */
    public synchronized JsonNode call(String method, Map<String, Object> params) {
        int id = ids.incrementAndGet();
        ObjectNode msg = JSON.createObjectNode();
        msg.put("id", id);
        msg.put("method", method);
        msg.set("params", params == null ? JSON.createObjectNode() : JSON.valueToTree(params));
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        socket.sendText(msg.toString(), true).join();
        JsonNode reply;
        try {
            reply = f.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(method + ": no answer from chromium: " + e, e);
        } finally {
            pending.remove(id);
        }
        if (reply.has("error")) {
            throw new AssertionError(method + ": " + reply.get("error"));
        }
        return reply.path("result");
    }

    public void navigate(String url) {
        call("Page.navigate", Map.of("url", url));
    }

    /** Evaluates a JavaScript expression in the page and returns its value (JSON-compatible). */
    public JsonNode eval(String expression) {
        JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
        if (r.has("exceptionDetails")) {
            throw new AssertionError("script failed: " + expression + ": " + r.get("exceptionDetails"));
        }
        return r.path("result").path("value");
    }

    /** Sets the viewport (CSS pixels); {@code mobile} emulates a phone's viewport and touch. */
    public void viewport(int width, int height, boolean mobile) {
        call("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                "deviceScaleFactor", 1, "mobile", mobile));
    }

    /** A PNG of the whole page at the current width (the viewport grows to the page's height for the shot). */
    public byte[] screenshotFullPage() {
        JsonNode size = call("Page.getLayoutMetrics", null).path("cssContentSize");
        Map<String, Object> clip = Map.of("x", 0, "y", 0, "width", size.path("width").asDouble(),
                "height", size.path("height").asDouble(), "scale", 1);
        JsonNode r = call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true, "clip", clip));
        return Base64.getDecoder().decode(r.path("data").asText());
    }

    /** Console errors, uncaught exceptions and policy violations seen so far. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    private void onMessage(JsonNode m) {
        if (m.has("id")) {
            CompletableFuture<JsonNode> f = pending.get(m.get("id").asInt());
            if (f != null) {
                f.complete(m);
            }
            return;
        }
        String method = m.path("method").asText();
        JsonNode p = m.path("params");
        switch (method) {
            case "Runtime.exceptionThrown" -> problems.add("exception: " + p.path("exceptionDetails"));
            case "Runtime.consoleAPICalled" -> {
                if (p.path("type").asText().equals("error")) {
                    problems.add("console.error: " + p.path("args"));
                }
            }
            case "Log.entryAdded" -> {
                JsonNode e = p.path("entry");
                // The browser logs a refused fetch while the agent is stopped; a policy violation or a
                // script error is a problem, a failed network request of a test that stops things is not.
                if (e.path("level").asText().equals("error") && !e.path("source").asText().equals("network")) {
                    problems.add("log: " + e.path("source").asText() + ": " + e.path("text").asText());
                }
            }
            default -> {
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            // closing anyway
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
            // A temp dir left behind: Chromium's helper processes can still be renaming files in it (a file
            // listed by the walk is gone when it is reached), which must not fail the test that used it.
        }
    }

    /** Joins a message's frames, then hands it over. */
    private static final class Listener implements WebSocket.Listener {
        private final java.util.function.Supplier<Chromium> owner;
        private final StringBuilder buf = new StringBuilder();

        Listener(java.util.function.Supplier<Chromium> owner) {
            this.owner = owner;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            buf.append(data);
            if (last) {
                String text = buf.toString();
                buf.setLength(0);
                Chromium c = owner.get();
                if (c != null) {
                    try {
                        c.onMessage(JSON.readTree(text));
                    } catch (IOException e) {
                        c.problems.add("unreadable DevTools message: " + e.getMessage());
                    }
                }
            }
            ws.request(1);
            return null;
        }
    }
}
