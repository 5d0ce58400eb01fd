package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Ollama's native /api/chat and /api/generate stream (NDJSON). Content under message.content or
 * response, thinking under message.thinking or thinking; the final line has done:true and the
 * server's own counters and durations (nanoseconds, each possibly absent). An {@code error} line
 * inside the 200 stream is a stream_error; a stream that ends before done:true is cut.
 */
final class OllamaStreamParser implements StreamParser {
    private final NdjsonDecoder ndjson;
    private final int maxLineBytes;

    OllamaStreamParser() {
        this(NdjsonDecoder.DEFAULT_MAX_LINE_BYTES);
    }

    /** With lines (events) bounded at {@code maxLineBytes}. */
    OllamaStreamParser(int maxLineBytes) {
        this.ndjson = new NdjsonDecoder(maxLineBytes);
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public void bytes(ByteBuffer bytes, long nanos, Measurement m) {
        for (String line : ndjson.feed(bytes)) {
            line(line, nanos, m);
        }
        if (ndjson.overflowed()) {
            m.fail(ProbeErrors.MALFORMED, "NDJSON line over its bound (" + maxLineBytes + " bytes, "
                    + NdjsonDecoder.MAX_PENDING_LINES + " lines a read)");
        }
    }

    @Override
    public void end(long nanos, Measurement m) {
        for (String line : ndjson.finish()) {
            if (ndjson.endedMidLine() && !OpenAiStreamParser.isJson(line)) {
                m.fail(ProbeErrors.CUT, "stream ended inside a line");
                return;
            }
            line(line, nanos, m);
        }
        m.fail(ProbeErrors.CUT, "stream ended before the done:true line");
    }

    private static Long duration(JsonNode n, String field) {
        return InputRange.count(OpenAiStreamParser.SOURCE, field, n.get(field), InputRange.MAX_DURATION_NANOS);
    }

    private void line(String line, long nanos, Measurement m) {
        if (m.isFinished()) {
            return;
        }
        JsonNode n;
        try {
            n = HttpTransport.JSON.readTree(line);
        } catch (IOException e) {
            m.fail(ProbeErrors.MALFORMED, "NDJSON line is not JSON: " + HttpTransport.clip(line));
            return;
        }
        if (n == null || !n.isObject()) {
            m.fail(ProbeErrors.MALFORMED, "NDJSON line is not a JSON object: " + HttpTransport.clip(line));
            return;
        }
        if (n.has("error")) {
            m.fail(ProbeErrors.STREAM_ERROR, "error in stream: " + HttpTransport.clip(OpenAiStreamParser.errorText(n)));
            return;
        }
        int chars = OpenAiStreamParser.text(n, "response") + OpenAiStreamParser.text(n, "thinking");
        JsonNode msg = n.get("message");
        if (msg != null && msg.isObject()) {
            chars += OpenAiStreamParser.text(msg, "content") + OpenAiStreamParser.text(msg, "thinking");
        }
        if (chars > 0) {
            m.content(nanos, chars);
        }
        if (n.path("done").asBoolean(false)) {
            synchronized (m) {
                if (n.hasNonNull("model")) {
                    m.responseModel = n.get("model").asText();
                }
                m.engineInput = OpenAiStreamParser.count(n.get("prompt_eval_count"), "prompt_eval_count");
                m.engineOutput = OpenAiStreamParser.count(n.get("eval_count"), "eval_count");
                // prompt tokens served from the runner's cache (Ollama 2026 and later); absent before
                Long cached = OpenAiStreamParser.count(n.get("prompt_eval_cached_count"), "prompt_eval_cached_count");
                if (cached != null) {
                    m.cachedTokens = cached;
                }
                Long promptNs = duration(n, "prompt_eval_duration");
                Long evalNs = duration(n, "eval_duration");
                Long loadNs = duration(n, "load_duration");
                m.serverPromptSeconds = promptNs == null ? null : promptNs / 1e9;
                m.loadSeconds = loadNs == null ? null : loadNs / 1e9;
                if (m.engineOutput != null && evalNs != null && evalNs > 0 && m.engineOutput > 0) {
                    m.serverDecodeRate = m.engineOutput / (evalNs / 1e9);
                }
            }
            m.done(nanos);
        }
    }
}
