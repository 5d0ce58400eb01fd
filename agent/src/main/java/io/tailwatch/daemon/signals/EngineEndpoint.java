package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;

/**
 * The engine's base URL with its credentials, and the one way signal sources GET from it: through
 * the probes' {@link HttpTransport} (shared client, connect timeout, deadline, body bound), with
 * every fault turned into a classified {@link SignalFailure}.
 */
public record EngineEndpoint(URI base, String apiKey, Duration connectTimeout) {
    public static final String ACCEPT_METRICS =
            "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,application/json;q=0.4,*/*;q=0.1";

    public URI uri(String path) {
        String b = base.toString();
        while (b.endsWith("/")) {
            b = b.substring(0, b.length() - 1);
        }
        return URI.create(b + path);
    }

    /**
     * GET {@code path} within {@code deadline} and parse it by streaming into a bounded tree, whatever its
     * status (an error answer's tree is read from its first {@code 4096} bytes); only transport faults are
     * failures.
     */
    public HttpTransport.JsonReply answerJson(String path, Duration deadline) throws SignalFailure {
        HttpTransport.JsonReply r = HttpTransport.json(uri(path), null, apiKey, connectTimeout, deadline);
        if (r.status() == 0 && r.error() != null) {
            throw new SignalFailure(SignalFailure.fromTransport(r.errorType()), path, r.error());
        }
        return r;
    }

    /**
     * GET {@code path} and parse it as JSON by streaming it into a bounded tree; a body that is not JSON
     * is {@code malformed}, one over the byte bound {@code over_limit}.
     */
    public JsonNode getJson(String path, Duration deadline) throws SignalFailure {
        HttpTransport.JsonReply r = HttpTransport.json(uri(path), null, apiKey, connectTimeout, deadline);
        if (r.error() != null) {
            throw new SignalFailure(r.status() == 0 ? SignalFailure.fromTransport(r.errorType()) : r.errorType(), path,
                    r.error());
        }
        if (r.status() / 100 != 2) {
            throw new SignalFailure(ProbeErrors.http(r.status()), path, "HTTP " + r.status() + clip(r.rawBody()));
        }
        if (!r.complete()) {
            throw new SignalFailure(ProbeErrors.OVER_LIMIT, path, r.limit());
        }
        if (r.body() == null || r.body().isMissingNode()) {
            throw new SignalFailure(SignalFailure.MALFORMED, path, "empty body");
        }
        return r.body();
    }

    /** Reads a streamed body; may throw the parser's own failures as SignalFailure. */
    public interface BodyReader<T> {
        T read(String contentType, java.io.InputStream body) throws IOException, SignalFailure;
    }

    /**
     * GET {@code path} within {@code deadline} and hand the 2xx body to {@code reader} as a stream of
     * at most {@link HttpTransport#MAX_JSON_BYTES} bytes; more is {@code over_limit}, any other answer
     * or fault a classified failure.
     */
    public <T> T stream(String path, String accept, Duration deadline, BodyReader<T> reader) throws SignalFailure {
        long end = System.nanoTime() + deadline.toNanos();
        try (io.tailwatch.core.http.HttpExchange x = HttpTransport.Request.get(uri(path), accept, apiKey)
                .send(connectTimeout, end)) {
            if (x.status() / 100 != 2) {
                throw new SignalFailure(ProbeErrors.http(x.status()), path, "HTTP " + x.status()
                        + clip(HttpTransport.errorBody(x, end)));
            }
            io.tailwatch.core.http.BodyStream in = new io.tailwatch.core.http.BodyStream(x, HttpTransport.MAX_JSON_BYTES, end);
            try {
                return reader.read(x.header("Content-Type"), in);
            } catch (io.tailwatch.core.http.BodyStream.TooLarge e) {
                throw new SignalFailure(ProbeErrors.OVER_LIMIT, path, "body larger than " + e.limit() + " bytes");
            }
        } catch (io.tailwatch.core.http.HttpExchange.DeadlineExceeded e) {
            throw new SignalFailure(SignalFailure.TIMEOUT, path, "no complete answer within " + deadline.toMillis() + " ms");
        } catch (IOException | RuntimeException e) {
            throw new SignalFailure(SignalFailure.fromTransport(ProbeErrors.beforeHeaders(e)), path, ProbeErrors.describe(e));
        }
    }

    static String clip(String s) {
        if (s == null || s.isBlank()) {
            return "";
        }
        s = s.replaceAll("\\s+", " ").trim();
        return " " + (s.length() <= 160 ? s : s.substring(0, 160) + "...");
    }
}
