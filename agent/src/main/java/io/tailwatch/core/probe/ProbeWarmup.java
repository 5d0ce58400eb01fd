package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.http.HttpTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs the probe's whole code path once per process and wire API before the first timed probe, so
 * that a fresh JVM does not load and link the socket, HTTP framing, stream decoder, JSON and
 * measurement classes inside the timed region (a one-shot {@code tailwatch probe} read 6-12 ms high
 * against curl without it; docs/performance.md, "Probe measurement accuracy").
 *
 * <p>The warm-up sends nothing to the engine: the client's own streaming request (same method, path
 * and body shape; the bearer token is left out) goes to a listener of this process on an ephemeral
 * loopback port, which answers with a short canned stream in the API's format (chunked, a few reads,
 * every field the parser reads). Bounded: one connection, a request of at most
 * {@link #MAX_REQUEST_BYTES}, the listener's accept and reads and the client's exchange all end by
 * the budget ({@link #BUDGET}). A warm-up that fails or runs out of time is logged at debug and the
 * probe goes on as before; it is not tried again. {@code -Dtailwatch.probe.warmup=false} turns it
 * off (to measure what it is worth).
 */
final class ProbeWarmup {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ProbeWarmup.class);
    static final Duration BUDGET = Duration.ofSeconds(1);
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    private static final Set<String> DONE = ConcurrentHashMap.newKeySet();

    /** What one warm-up did: the client's result over the canned stream, the request head the listener read, its time. */
    record Outcome(ProbeResult result, String requestHead, long nanos) {
    }

    private ProbeWarmup() {
    }

    /** Warms {@code client}'s API once per process (later calls return at once); never throws. */
    static void once(AbstractEngineClient client, ProbeRequest r) {
        String api = client.api().wireName();
        if (DONE.contains(api) || !enabled()) {
            return;
        }
        // Held while warming, so a second engine of the same API waits for a warm path instead of racing it.
        synchronized (ProbeWarmup.class) {
            if (!DONE.add(api)) {
                return;
            }
            try {
                Outcome o = run(client, r, BUDGET, canned(api));
                if (o == null) {
                    return;
                }
                if (o.result().success()) {
                    LOG.debug("probe path for {} warmed in {} ms", api, o.nanos() / 1_000_000);
                } else {
                    LOG.debug("probe warm-up for {} did not complete ({}: {}) after {} ms", api, o.result().errorType(),
                            o.result().errorMessage(), o.nanos() / 1_000_000);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("probe warm-up for {} failed: {}", api, io.tailwatch.core.logging.LogGuard.value(e));
            }
        }
    }

    static boolean enabled() {
        return !"false".equalsIgnoreCase(System.getProperty("tailwatch.probe.warmup", "true"));
    }

    /**
     * One warm-up exchange of {@code client} against an in-process loopback listener answering
     * {@code response} (a whole HTTP response head; its body is sent as the given chunks). Returns null
     * when there is no canned stream for the API.
     */
    static Outcome run(AbstractEngineClient client, ProbeRequest r, Duration budget, Canned response) throws IOException {
        if (response == null) {
            return null;
        }
        long t0 = System.nanoTime();
        long deadline = t0 + budget.toNanos();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Listener l = new Listener(listener, response, deadline);
            Thread t = new Thread(l, "tailwatch-probe-warmup");
            t.setDaemon(true);
            t.start();
            // The request's shape, with a prompt small enough for the listener's bound.
            HttpTransport.Request real = client.streamRequest(r, "warmup", PromptFactory.prompt(Math.min(r.promptTokens(), 256)));
            Map<String, String> headers = new LinkedHashMap<>(real.headers());
            headers.keySet().removeIf(h -> h.equalsIgnoreCase("Authorization"));
            URI local = URI.create("http://" + listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort()
                    + real.uri().getRawPath());
            HttpTransport.Request req = new HttpTransport.Request(real.method(), local, headers, real.body());
            Duration left = Duration.ofNanos(Math.max(1_000_000L, deadline - System.nanoTime()));
            Measurement m = StreamingCall.run(req, left, client.parser(), left, left, null);
            ProbeResult result = AbstractEngineClient.result(m, Instant.now(), "warmup", r);
            l.close(); // ends a listener still waiting (for a client that never connected, or holding a stall open)
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Outcome(result, l.head, System.nanoTime() - t0);
        }
    }

    /**
     * A canned response: content type and the body's pieces, each sent as one HTTP chunk and flushed;
     * with {@code end} false the listener then holds the connection open instead of ending the body
     * (a stalled stream, to show the budget holds).
     */
    record Canned(String contentType, boolean end, String... pieces) {
    }

    /**
     * Tokens in a canned stream: as many as a default probe's, so that the decoder's and the JSON
     * parser's per-byte methods are compiled during the warm-up rather than during the timed stream.
     */
    static final int TOKENS = 32;
    private static final String[] WORDS = {"one", "two", "three", "four", "five", "six", "seven", "eight"};

    /** The canned stream of {@code api}: the shapes its parser reads (role, content, usage or counters, end marker). */
    static Canned canned(String api) {
        List<String> pieces = new ArrayList<>();
        switch (api) {
            case "openai": {
                pieces.add(sse(openAiChunk(choice(delta(""), null))));
                pieces.add(": keepalive\n\n");
                for (int i = 0; i < TOKENS; i++) {
                    ObjectNode delta = HttpTransport.JSON.createObjectNode().put("role", "assistant")
                            .put(i == 1 ? "reasoning_content" : "content", " " + WORDS[i % WORDS.length]);
                    pieces.add(sse(openAiChunk(choice(delta, null))));
                }
                ObjectNode last = openAiChunk(choice(HttpTransport.JSON.createObjectNode(), "length"));
                last.putObject("timings").put("prompt_n", 64).put("prompt_ms", 1.5).put("predicted_n", TOKENS)
                        .put("predicted_per_second", 35.0);
                ObjectNode usage = openAiChunk(null);
                usage.putObject("usage").put("prompt_tokens", 64).put("completion_tokens", TOKENS)
                        .put("total_tokens", 64 + TOKENS).putObject("prompt_tokens_details").put("cached_tokens", 0);
                pieces.add(sse(last) + sse(usage));
                pieces.add("data: [DONE]\n\n");
                return new Canned("text/event-stream", true, pieces.toArray(String[]::new));
            }
            case "ollama": {
                for (int i = 0; i < TOKENS; i++) {
                    ObjectNode line = ollamaLine(" " + WORDS[i % WORDS.length]);
                    if (i == 1) {
                        ((ObjectNode) line.get("message")).put("thinking", "");
                    }
                    pieces.add(json(line.put("done", false)) + "\n");
                }
                ObjectNode end = ollamaLine("").put("done", true).put("done_reason", "length").put("total_duration", 3000000)
                        .put("load_duration", 1000000).put("prompt_eval_count", 64).put("prompt_eval_duration", 1000000)
                        .put("eval_count", TOKENS).put("eval_duration", 1000000);
                pieces.add(json(end) + "\n");
                return new Canned("application/x-ndjson", true, pieces.toArray(String[]::new));
            }
            default:
                return null;
        }
    }

    /** A chat.completion.chunk carrying {@code choice} (null: an empty choices list, as the usage chunk has). */
    private static ObjectNode openAiChunk(ObjectNode choice) {
        ObjectNode c = HttpTransport.JSON.createObjectNode().put("id", "warmup").put("object", "chat.completion.chunk")
                .put("created", 0).put("model", "warmup");
        ArrayNode choices = c.putArray("choices");
        if (choice != null) {
            choices.add(choice);
        }
        return c;
    }

    private static ObjectNode choice(ObjectNode delta, String finishReason) {
        ObjectNode c = HttpTransport.JSON.createObjectNode().put("index", 0);
        c.set("delta", delta);
        return c.put("finish_reason", finishReason);
    }

    private static ObjectNode delta(String content) {
        return HttpTransport.JSON.createObjectNode().put("role", "assistant").put("content", content);
    }

    private static ObjectNode ollamaLine(String content) {
        ObjectNode line = HttpTransport.JSON.createObjectNode().put("model", "warmup").put("created_at", "2026-01-01T00:00:00Z");
        line.putObject("message").put("role", "assistant").put("content", content);
        return line;
    }

    private static String sse(ObjectNode event) {
        return "data: " + json(event) + "\n\n";
    }

    private static String json(ObjectNode node) {
        try {
            return HttpTransport.JSON.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Accepts one connection, reads the request (bounded), answers the canned stream in chunks, closes. */
    private static final class Listener implements Runnable {
        private final ServerSocket listener;
        private final Canned response;
        private final long deadline;
        volatile String head;
        private volatile Socket conn;

        Listener(ServerSocket listener, Canned response, long deadline) {
            this.listener = listener;
            this.response = response;
            this.deadline = deadline;
        }

        @Override
        public void run() {
            try {
                listener.setSoTimeout(millisLeft());
                try (Socket s = listener.accept()) {
                    conn = s;
                    s.setTcpNoDelay(true);
                    s.setSoTimeout(millisLeft());
                    head = readRequest(new java.io.BufferedInputStream(s.getInputStream()));
                    OutputStream out = s.getOutputStream();
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: " + response.contentType()
                            + "\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                    for (String piece : response.pieces()) {
                        byte[] b = piece.getBytes(StandardCharsets.UTF_8);
                        out.write((Integer.toHexString(b.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        out.write(b);
                        out.write(CRLF);
                        out.flush();
                    }
                    if (response.end()) {
                        out.write(LAST_CHUNK);
                        out.flush();
                        s.shutdownOutput();
                    }
                    // Until the client has read the stream and closed, or the client's side closes this.
                    s.setSoTimeout(millisLeft() + 1000);
                    while (s.getInputStream().read() >= 0) {
                        // the client sends nothing more
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the client side reports what went wrong (a timeout or a cut stream)
            }
        }

        void close() {
            try {
                listener.close();
                Socket s = conn;
                if (s != null) {
                    s.close();
                }
            } catch (IOException e) {
                // nothing left to do
            }
        }

        private int millisLeft() throws SocketTimeoutException {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                throw new SocketTimeoutException("warm-up budget spent");
            }
            return (int) Math.min(Integer.MAX_VALUE, left);
        }

        /** The request head (returned) and its body (read by Content-Length and dropped), at most MAX_REQUEST_BYTES. */
        private String readRequest(InputStream in) throws IOException {
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            int last4 = 0;
            while (last4 != 0x0d0a0d0a) { // up to the blank line that ends the head
                int c = in.read();
                if (c < 0) {
                    throw new IOException("request cut");
                }
                h.write(c);
                if (h.size() > MAX_REQUEST_BYTES) {
                    throw new IOException("request head over the bound");
                }
                last4 = (last4 << 8) | c;
            }
            String text = h.toString(StandardCharsets.ISO_8859_1);
            long length = 0;
            for (String line : text.split("\r\n")) {
                if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                    length = Long.parseLong(line.substring(15).trim());
                }
            }
            if (length > MAX_REQUEST_BYTES) {
                throw new IOException("request body over the bound");
            }
            in.readNBytes((int) length);
            return text;
        }
    }

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
}
