package io.tailwatch.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A client on a bare socket, independent of the product's HTTP code, that times a streamed chat
 * completion against a llama-server: time to the first content token and to the end of the stream,
 * both from just before the request's first byte is written, and the server's own {@code timings}.
 * HTTP/1.1 with {@code Connection: close}; chunked bodies are decoded. 60 s read deadline.
 */
public final class RawStream {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_LINE = 1 << 20;

    /** What one request took, and what the server said about it (-1 when it did not). */
    public record Timed(double ttftSeconds, double e2eSeconds, int predictedN, double predictedPerSecond) {
    }

    private RawStream() {
    }

    /** A streamed /v1/chat/completions of {@code prompt}, {@code maxTokens} tokens; {@code apiKey} may be null. */
    public static Timed chat(int port, String prompt, int maxTokens, String apiKey) throws IOException {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":" + JSON.writeValueAsString(prompt) + "}],"
                + "\"max_tokens\":" + maxTokens + ",\"temperature\":0,\"stream\":true}";
        return send(port, "/v1/chat/completions", body, apiKey, true);
    }

    /** A /completion of {@code nPredict} tokens, not streamed (load for the signal tests). */
    public static Timed completion(int port, int nPredict) throws IOException {
        return send(port, "/completion", "{\"prompt\":\"load\",\"n_predict\":" + nPredict + "}", null, false);
    }

    /**
     * Sends a streamed /completion of {@code nPredict} tokens and returns its open socket without
     * reading the answer: load for the signal tests. Closing the socket makes the server stop it.
     */
    public static Socket startCompletion(int port, int nPredict) throws IOException {
        return startPost(port, "/completion", "{\"prompt\":\"load\",\"n_predict\":" + nPredict + ",\"stream\":true}");
    }

    /** Sends POST {@code path} with the JSON {@code json} and returns the open socket without reading the answer. */
    public static Socket startPost(int port, String path, String json) throws IOException {
        byte[] payload = json.getBytes(StandardCharsets.UTF_8);
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                    + "Connection: close\r\nContent-Length: " + payload.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    private static Timed send(int port, String path, String body, String apiKey, boolean stream) throws IOException {
        byte[] payload = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + payload.length + "\r\n");
        if (apiKey != null) {
            head.append("Authorization: Bearer ").append(apiKey).append("\r\n");
        }
        head.append("\r\n");
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(60_000);
            s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            long t0 = System.nanoTime();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(payload);
            out.flush();
            String status = line(in);
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException(path + " answered " + status);
            }
            boolean chunked = false;
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                chunked |= h.toLowerCase(java.util.Locale.ROOT).startsWith("transfer-encoding:") && h.contains("chunked");
            }
            InputStream bodyIn = chunked ? new Dechunk(in) : in;
            long first = -1;
            JsonNode timings = null;
            ByteArrayOutputStream whole = new ByteArrayOutputStream();
            while (true) {
                String l = stream ? lineOrNull(bodyIn) : null;
                if (!stream) {
                    whole.write(bodyIn.readAllBytes());
                    break;
                }
                if (l == null || l.equals("data: [DONE]")) {
                    break;
                }
                if (!l.startsWith("data: ")) {
                    continue;
                }
                JsonNode ev = JSON.readTree(l.substring(6));
                JsonNode content = ev.path("choices").path(0).path("delta").path("content");
                if (first < 0 && content.isTextual() && !content.asText().isEmpty()) {
                    first = System.nanoTime();
                }
                if (ev.has("timings")) {
                    timings = ev.get("timings");
                }
            }
            long end = System.nanoTime();
            if (!stream) {
                JsonNode r = JSON.readTree(whole.toByteArray());
                timings = r.get("timings");
            }
            return new Timed(first < 0 ? -1 : (first - t0) / 1e9, (end - t0) / 1e9,
                    timings == null ? -1 : timings.path("predicted_n").asInt(-1),
                    timings == null ? -1 : timings.path("predicted_per_second").asDouble(-1));
        }
    }

    private static String line(InputStream in) throws IOException {
        String l = lineOrNull(in);
        if (l == null) {
            throw new IOException("connection closed in the response head");
        }
        return l;
    }

    private static String lineOrNull(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (b.size() > MAX_LINE) {
                throw new IOException("line longer than " + MAX_LINE + " bytes");
            }
            b.write(c);
        }
        if (c == -1 && b.size() == 0) {
            return null;
        }
        String s = b.toString(StandardCharsets.UTF_8);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    /** Transfer-Encoding: chunked, byte by byte. */
    private static final class Dechunk extends InputStream {
        private final InputStream in;
        private long left;
        private boolean done;

        Dechunk(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            if (done) {
                return -1;
            }
            if (left == 0) {
                String size = lineOrNull(in);
                if (size != null && size.isEmpty()) {
                    size = lineOrNull(in); // the CRLF after the previous chunk
                }
                if (size == null) {
                    done = true;
                    return -1;
                }
                int semi = size.indexOf(';');
                left = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (left == 0) {
                    done = true;
                    return -1;
                }
            }
            int c = in.read();
            if (c == -1) {
                done = true;
                return -1;
            }
            left--;
            return c;
        }
    }
}
