package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * OpenAI-style chat completion stream (SSE): content or reasoning deltas, a usage chunk with
 * {@code choices: []}, and {@code data: [DONE]}. Tolerates role-only and empty chunks, keep-alive
 * comments, usage repeated on every chunk; an {@code error} object inside the 200 stream is a
 * stream_error; a stream that ends without [DONE] is cut. LM Studio's native chat stream (named events ending
 * with {@code chat.end}) is read by {@link LmStudioChatEvents}.
 */
final class OpenAiStreamParser implements StreamParser {
    private final SseDecoder sse;
    private final int maxLineBytes;

    OpenAiStreamParser() {
        this(SseDecoder.DEFAULT_MAX_LINE_BYTES);
    }

    /** With lines (events) bounded at {@code maxLineBytes}. */
    OpenAiStreamParser(int maxLineBytes) {
        this.sse = new SseDecoder(maxLineBytes);
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public void bytes(ByteBuffer bytes, long nanos, Measurement m) {
        for (SseDecoder.Event e : sse.feed(bytes)) {
            event(e, nanos, m);
        }
        if (sse.overflowed()) {
            m.fail(ProbeErrors.MALFORMED, "SSE line or event over its bound (" + maxLineBytes + " bytes, "
                    + SseDecoder.MAX_EVENT_LINES + " data lines, " + SseDecoder.MAX_PENDING_EVENTS + " events a read)");
        }
    }

    @Override
    public void end(long nanos, Measurement m) {
        for (SseDecoder.Event e : sse.finish()) {
            if (!e.data().trim().equals("[DONE]") && !isJson(e.data())) {
                // An event the stream ended inside of: a cut, not malformed data.
                m.fail(ProbeErrors.CUT, "stream ended inside an event");
                return;
            }
            event(e, nanos, m);
        }
        m.fail(ProbeErrors.CUT, "stream ended without its end (data: [DONE], or LM Studio's chat.end)");
    }

    private void event(SseDecoder.Event e, long nanos, Measurement m) {
        if (m.isFinished()) {
            return;
        }
        String data = e.data().trim();
        if (data.equals("[DONE]")) {
            m.done(nanos);
            return;
        }
        JsonNode n;
        try {
            n = HttpTransport.JSON.readTree(data);
        } catch (IOException ex) {
            m.fail(ProbeErrors.MALFORMED, "SSE data is not JSON: " + HttpTransport.clip(data));
            return;
        }
        if (n == null || !n.isObject()) {
            m.fail(ProbeErrors.MALFORMED, "SSE data is not a JSON object: " + HttpTransport.clip(data));
            return;
        }
        if ("error".equals(e.event()) || (n.has("error") && !n.get("error").isNull())) {
            m.fail(ProbeErrors.STREAM_ERROR, "error in stream: " + HttpTransport.clip(errorText(n)));
            return;
        }
        if (LmStudioChatEvents.named(e.event())) { // LM Studio's native /api/v1/chat stream
            LmStudioChatEvents.read(e.event(), n, nanos, m);
            return;
        }
        synchronized (m) {
            if (n.hasNonNull("model")) {
                m.responseModel = n.get("model").asText();
            }
            JsonNode fp = n.get("system_fingerprint");
            if (m.fingerprint == null && fp != null && fp.isTextual() && fp.asText().length() <= 200) {
                m.fingerprint = fp.asText();
            }
            counts(n, m);
        }
        JsonNode choices = n.get("choices");
        if (choices != null && choices.isArray() && !choices.isEmpty()) {
            JsonNode c = choices.get(0);
            JsonNode delta = c.has("delta") ? c.get("delta") : c.get("message");
            int chars = 0;
            if (delta != null && delta.isObject()) {
                chars += text(delta, "content") + text(delta, "reasoning") + text(delta, "reasoning_content")
                        + text(delta, "thinking");
            }
            chars += text(c, "text");
            if (chars > 0) {
                m.content(nanos, chars);
            }
        }
        if (choices == null && n.has("content")) {
            // llama.cpp's own /completion stream: the text at the top level, "stop": true on the last chunk
            // (with its timings and counts); no [DONE] follows.
            int chars = text(n, "content");
            if (chars > 0) {
                m.content(nanos, chars);
            }
            completionEnd(n, nanos, m);
        }
    }

    /** The counts an event carries (usage, llama.cpp's timings, LM Studio's stats) into {@code m}, whose monitor is held. */
    static void counts(JsonNode n, Measurement m) {
        JsonNode usage = n.get("usage");
        if (usage != null && usage.isObject()) {
            Long in = count(usage.get("prompt_tokens"), "prompt_tokens");
            Long out = count(usage.get("completion_tokens"), "completion_tokens");
            // Some servers send zeroed usage on every chunk and the real counts at the end.
            if (out != null && (out > 0 || m.usageOutput == null)) {
                m.usageOutput = out;
            }
            if (in != null && (in > 0 || m.usageInput == null)) {
                m.usageInput = in;
            }
            Long cached = count(usage.at("/prompt_tokens_details/cached_tokens"), "cached_tokens");
            if (cached != null) {
                m.cachedTokens = cached;
            }
        }
        JsonNode timings = n.get("timings"); // llama.cpp
        if (timings != null && timings.isObject()) {
            Long predicted = count(timings.get("predicted_n"), "predicted_n");
            Long prompt = count(timings.get("prompt_n"), "prompt_n");
            if (predicted != null) {
                m.engineOutput = predicted;
            }
            if (prompt != null) {
                m.engineInput = prompt;
            }
            Double promptMs = InputRange.number(SOURCE, "prompt_ms", timings.get("prompt_ms"), 0, MAX_MS);
            if (promptMs != null) {
                m.serverPromptSeconds = promptMs / 1000.0;
            }
            Double rate = InputRange.number(SOURCE, "predicted_per_second", timings.get("predicted_per_second"), 0,
                    InputRange.MAX_TOKEN_RATE);
            if (rate != null && rate > 0) { // 0 when nothing was decoded: unknown
                m.serverDecodeRate = rate;
            }
        }
        JsonNode stats = n.get("stats"); // LM Studio
        Double lmRate = stats != null && stats.isObject() ? InputRange.number(SOURCE, "tokens_per_second",
                stats.get("tokens_per_second"), 0, InputRange.MAX_TOKEN_RATE) : null;
        if (lmRate != null && lmRate > 0) {
            m.serverDecodeRate = lmRate;
        }
    }

    /** The end of llama.cpp's own /completion stream: its count with "stop": true, which is also the end marker. */
    static void completionEnd(JsonNode n, long nanos, Measurement m) {
        synchronized (m) {
            Long predicted = count(n.get("tokens_predicted"), "tokens_predicted");
            if (predicted != null && m.engineOutput == null && n.path("stop").asBoolean(false)) {
                m.engineOutput = predicted;
            }
        }
        JsonNode stop = n.get("stop");
        if (stop != null && stop.isBoolean() && stop.booleanValue()) {
            m.done(nanos);
        }
    }

    static boolean isJson(String s) {
        try {
            HttpTransport.JSON.readTree(s);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int text(JsonNode obj, String field) {
        JsonNode t = obj.get(field);
        return t != null && t.isTextual() ? t.asText().length() : 0;
    }

    /** Where the streams' numbers enter, for {@link InputRange}. */
    static final String SOURCE = "engine_stream";
    /** A duration in milliseconds an engine reports: one day. */
    private static final double MAX_MS = InputRange.MAX_DURATION_NANOS / 1e6;

    /** A token count of the stream, range-checked (null when absent or out of range). */
    static Long count(JsonNode n, String field) {
        return InputRange.count(SOURCE, field, n, InputRange.MAX_TOKENS);
    }

    static String errorText(JsonNode n) {
        JsonNode err = n.get("error");
        if (err == null) {
            return n.toString();
        }
        if (err.isTextual()) {
            return err.asText();
        }
        if (err.hasNonNull("message")) {
            return err.get("message").asText();
        }
        return err.toString();
    }
}
