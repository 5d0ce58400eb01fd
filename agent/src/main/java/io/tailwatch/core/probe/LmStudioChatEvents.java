package io.tailwatch.core.probe;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;

/**
 * LM Studio's native chat stream ({@code POST /api/v1/chat} with {@code stream: true}, 0.4 and later): named SSE
 * events, {@code event: <type>} then {@code data: {"type": <type>, ...}}. Text arrives in {@code message.delta}
 * and {@code reasoning.delta} events ({@code content}); the stream's own end is {@code chat.end}, whose
 * {@code result} is the whole answer as the non-streamed request returns it, with the engine's {@code stats}:
 * {@code input_tokens}, {@code total_output_tokens} (reasoning included), {@code tokens_per_second},
 * {@code time_to_first_token_seconds} and, when the request had to load the model,
 * {@code model_load_time_seconds}. A stream that ends without {@code chat.end} is cut; an {@code error} event is
 * the generic stream error ({@link OpenAiStreamParser}). Every figure is range-checked ({@link InputRange}); one out
 * of range is dropped (unknown), never clamped.
 */
final class LmStudioChatEvents {
    /** Where these numbers enter, for {@link InputRange}. */
    static final String SOURCE = "lmstudio_chat";
    private static final Set<String> NAMES = Set.of("chat.start", "model_load.start", "model_load.progress",
            "model_load.end", "prompt_processing.start", "prompt_processing.progress", "prompt_processing.end",
            "reasoning.start", "reasoning.delta", "reasoning.end", "tool_call.start", "tool_call.arguments",
            "tool_call.success", "tool_call.failure", "message.start", "message.delta", "message.end", "chat.end");
    /** A duration the engine reports, in seconds: one day at most. */
    static final double MAX_SECONDS = InputRange.MAX_DURATION_NANOS / 1e9;
    private static final int MAX_MODEL_CHARS = 256;

    private LmStudioChatEvents() {
    }

    /** True for one of LM Studio's chat event names (all but {@code error}, which every stream shares). */
    static boolean named(String event) {
        return event != null && NAMES.contains(event);
    }

    /** Reads one event {@code event} whose data is the JSON object {@code n}, arrived at {@code nanos}. */
    static void read(String event, JsonNode n, long nanos, Measurement m) {
        switch (event) {
            case "message.delta", "reasoning.delta" -> {
                int chars = OpenAiStreamParser.text(n, "content");
                if (chars > 0) {
                    m.content(nanos, chars);
                }
            }
            case "chat.start" -> model(n, m);
            case "model_load.end" -> {
                Double load = InputRange.number(SOURCE, "load_time_seconds", n.get("load_time_seconds"), 0, MAX_SECONDS);
                synchronized (m) {
                    if (load != null && m.loadSeconds == null) {
                        m.loadSeconds = load;
                    }
                }
            }
            case "chat.end" -> {
                JsonNode result = n.path("result");
                model(result, m);
                stats(result.get("stats"), m);
                m.done(nanos);
            }
            default -> {
                // progress and boundaries: nothing the measurement keeps
            }
        }
    }

    /** The engine's figures of one answer ({@code stats} of the non-streamed answer or of {@code chat.end}). */
    static void stats(JsonNode s, Measurement m) {
        if (s == null || !s.isObject()) {
            return;
        }
        Long in = InputRange.count(SOURCE, "input_tokens", s.get("input_tokens"), InputRange.MAX_TOKENS);
        Long out = InputRange.count(SOURCE, "total_output_tokens", s.get("total_output_tokens"), InputRange.MAX_TOKENS);
        Double rate = InputRange.number(SOURCE, "tokens_per_second", s.get("tokens_per_second"), 0, InputRange.MAX_TOKEN_RATE);
        Double ttft = InputRange.number(SOURCE, "time_to_first_token_seconds", s.get("time_to_first_token_seconds"), 0,
                MAX_SECONDS);
        Double load = InputRange.number(SOURCE, "model_load_time_seconds", s.get("model_load_time_seconds"), 0, MAX_SECONDS);
        synchronized (m) {
            if (out != null) {
                m.engineOutput = out;
                m.engineInput = in;
            }
            if (rate != null && rate > 0) { // 0 when nothing was generated: unknown
                m.serverDecodeRate = rate;
            }
            m.serverTtftSeconds = ttft;
            if (load != null) {
                m.loadSeconds = load;
            }
        }
    }

    private static void model(JsonNode n, Measurement m) {
        JsonNode id = n.get("model_instance_id");
        if (id != null && id.isTextual() && !id.asText().isBlank() && id.asText().length() <= MAX_MODEL_CHARS) {
            synchronized (m) {
                m.responseModel = id.asText();
            }
        }
    }
}
