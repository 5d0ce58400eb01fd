package io.tailwatch.core.probe;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import io.tailwatch.metrics.AttrValues.TokenSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Reads an engine's response as it passes on its way to someone else's client, measured as the probes measure
 * it (SSE chat chunks read from their bytes by {@link SseTap}, Ollama's NDJSON by the probes' parser), with lines
 * bounded at {@link #MAX_LINE_BYTES}, and
 * a token scanner for a whole JSON answer ({@code stream: false}) that keeps no more than the token it
 * is reading. Only timings, counts and the model name are kept: never a word of the content. Its state
 * is bounded per exchange (one line of the stream, or one JSON string of the answer); past a bound the
 * tap stops reading and reports what it had, the bytes themselves flow on untouched. One instance per
 * exchange, fed from one thread at a time.
 */
public final class StreamTap {
    /** The longest SSE event or NDJSON line read; a longer one ends the metering of that exchange. */
    public static final int MAX_LINE_BYTES = 64 * 1024;
    /** The longest JSON string value the whole-answer scanner holds (a long content string ends it). */
    static final int MAX_JSON_STRING = 64 * 1024;

    private static final JsonFactory ASYNC_JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(MAX_JSON_STRING)
                    .maxNestingDepth(64).maxNumberLength(32).maxNameLength(4096).build())
            .build();

    /** The count fields of a whole answer. */
    private static final java.util.Set<String> COUNTS = java.util.Set.of("completion_tokens", "prompt_tokens", "eval_count",
            "predicted_n", "prompt_eval_count", "prompt_n");

    /** LM Studio's figures in the {@code stats} of its native chat answer. */
    private static final java.util.Set<String> STATS = java.util.Set.of("input_tokens", "total_output_tokens",
            "time_to_first_token_seconds", "tokens_per_second");

    /** How the body is framed. */
    public enum Format { SSE, NDJSON, JSON, OTHER }

    private final Format format;
    private final StreamParser parser;
    /** SSE is read where its bytes lie, without a String or a tree per event (it is what the proxy forwards most). */
    private final SseTap sse;
    private final Measurement m;
    private JsonParser json;
    private String field;
    private boolean stopped;

    private StreamTap(Format format, long t0) {
        this.format = format;
        this.m = new Measurement(t0, false);
        this.sse = format == Format.SSE ? new SseTap(MAX_LINE_BYTES) : null;
        this.parser = format == Format.NDJSON ? new OllamaStreamParser(MAX_LINE_BYTES) : null;
        if (format == Format.JSON) {
            try {
                json = ASYNC_JSON.createNonBlockingByteArrayParser();
            } catch (IOException e) {
                stopped = true;
            }
        }
    }

    /** A tap for a response of {@code contentType} (null: none), whose request left at {@code t0} (System.nanoTime). */
    public static StreamTap of(String contentType, long t0) {
        return new StreamTap(format(contentType), t0);
    }

    public static Format format(String contentType) {
        if (contentType == null) {
            return Format.OTHER;
        }
        String ct = contentType.toLowerCase(Locale.ROOT);
        if (ct.startsWith("text/event-stream")) {
            return Format.SSE;
        }
        if (ct.startsWith("application/x-ndjson") || ct.startsWith("application/jsonl")
                || ct.startsWith("application/json-seq")) {
            return Format.NDJSON;
        }
        if (ct.startsWith("application/json")) {
            return Format.JSON;
        }
        return Format.OTHER;
    }

    public Format format() {
        return format;
    }

    /** Bytes of the body that arrived at {@code nanos}; the array is not kept. */
    public void bytes(byte[] b, int off, int len, long nanos) {
        if (stopped || len == 0) {
            return;
        }
        if (sse != null || parser != null) {
            if (m.isFinished()) {
                stopped = true;
                return;
            }
            if (sse != null) {
                sse.bytes(b, off, len, nanos, m);
            } else {
                parser.bytes(ByteBuffer.wrap(b, off, len), nanos, m);
            }
        } else if (json != null) {
            try {
                ((ByteArrayFeeder) json.getNonBlockingInputFeeder()).feedInput(b, off, off + len);
                scan();
            } catch (IOException | RuntimeException e) {
                stop();
            }
        }
    }

    /** The body ended at {@code nanos}. */
    public void end(long nanos) {
        if (stopped) {
            return;
        }
        if (sse != null || parser != null) {
            if (!m.isFinished()) {
                if (sse != null) {
                    sse.end(nanos, m);
                } else {
                    parser.end(nanos, m);
                }
            }
        } else if (json != null) {
            try {
                ((ByteArrayFeeder) json.getNonBlockingInputFeeder()).endOfInput();
                scan();
            } catch (IOException | RuntimeException e) {
                // what was counted stands
            }
            stop();
        }
        stopped = true;
    }

    /**
     * Stops reading and lets go of the parsers' buffers now (an exchange that ended before its body did); what was
     * read stands.
     */
    public void release() {
        if (sse != null) {
            sse.release();
        }
        stop();
    }

    private void stop() {
        stopped = true;
        if (json != null) {
            try {
                json.close();
            } catch (IOException ignored) {
                // nothing held
            }
            json = null;
        }
    }

    /**
     * The whole answer's counts, wherever they stand: usage.*, Ollama's eval counts, llama.cpp's timings, and LM
     * Studio's native chat ({@code stats.input_tokens}, {@code stats.total_output_tokens}, its model as
     * {@code model_instance_id}).
     */
    private void scan() throws IOException {
        JsonToken t;
        while ((t = json.nextToken()) != null && t != JsonToken.NOT_AVAILABLE) {
            if (t == JsonToken.FIELD_NAME) {
                field = json.currentName();
                continue;
            }
            if (field != null) {
                String f = field;
                field = null;
                synchronized (m) {
                    if ((t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) && STATS.contains(f)
                            && inTopLevel("stats")) {
                        stats(f, t);
                    } else if ((t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) && COUNTS.contains(f)) {
                        Long v = count(OpenAiStreamParser.SOURCE, f, t);
                        switch (f) {
                            case "completion_tokens" -> m.usageOutput = v;
                            case "prompt_tokens" -> m.usageInput = v;
                            case "eval_count", "predicted_n" -> m.engineOutput = v;
                            default -> m.engineInput = v; // prompt_eval_count, prompt_n
                        }
                    } else if (t == JsonToken.VALUE_STRING && (f.equals("model") || f.equals("model_instance_id"))
                            && json.getParsingContext().getParent() != null && json.getParsingContext().getParent().inRoot()) {
                        String model = json.getText();
                        m.responseModel = model.length() > 256 ? model.substring(0, 256) : model;
                    }
                }
            }
        }
    }

    /** The number just read as a whole count, range-checked (null: rejected, and counted under {@code source}). */
    private Long count(String source, String field, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT && json.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            return InputRange.count(source, field, json.getLongValue(), InputRange.MAX_TOKENS);
        }
        InputRange.number(source, field, json.getDoubleValue(), 0, -1); // not a whole count a long holds
        return null;
    }

    /** One figure of LM Studio's {@code stats}, range-checked as {@link LmStudioChatEvents#stats} checks it. */
    private void stats(String f, JsonToken t) throws IOException {
        String source = LmStudioChatEvents.SOURCE;
        switch (f) {
            case "total_output_tokens" -> m.engineOutput = count(source, f, t);
            case "input_tokens" -> m.engineInput = count(source, f, t);
            case "time_to_first_token_seconds" -> m.serverTtftSeconds = InputRange.number(source, f, json.getDoubleValue(), 0,
                    LmStudioChatEvents.MAX_SECONDS);
            default -> { // tokens_per_second; 0 when nothing was generated: unknown
                Double rate = InputRange.number(source, f, json.getDoubleValue(), 0, InputRange.MAX_TOKEN_RATE);
                m.serverDecodeRate = rate != null && rate > 0 ? rate : null;
            }
        }
    }

    /** The value just read is a field of the object named {@code name} at the answer's top level. */
    private boolean inTopLevel(String name) {
        com.fasterxml.jackson.core.JsonStreamContext outer = json.getParsingContext().getParent();
        return outer != null && name.equals(outer.getCurrentName()) && outer.getParent() != null
                && outer.getParent().inRoot();
    }

    // ---- what was read ----

    /** When the first chunk with content or reasoning arrived (System.nanoTime), or -1; streams only. */
    public long firstContentNanos() {
        synchronized (m) {
            return m.firstContentAt;
        }
    }

    public long lastContentNanos() {
        synchronized (m) {
            return m.lastContentAt;
        }
    }

    public int contentChunks() {
        synchronized (m) {
            return m.contentChunks;
        }
    }

    /** The stream's own end marker ([DONE], done:true) arrived. */
    public boolean sawEnd() {
        synchronized (m) {
            return m.doneAt >= 0;
        }
    }

    /** A probe failure class for what the stream said or how it ended (stream_error, malformed, cut), or null. */
    public String streamError() {
        synchronized (m) {
            return m.errorType;
        }
    }

    public String responseModel() {
        synchronized (m) {
            return m.responseModel;
        }
    }

    /**
     * The engine's own figures of its answer: its time to first token in seconds (LM Studio's native chat) and its
     * decode rate in tokens a second (above 0); each null where it told none.
     */
    public record EngineFigures(Double ttftSeconds, Double decodeRate) {
    }

    public EngineFigures engineFigures() {
        synchronized (m) {
            return new EngineFigures(m.serverTtftSeconds, m.serverDecodeRate);
        }
    }

    /** Output and input tokens and where they came from; tokens null when nothing told. */
    public record Tokens(Long output, Long input, TokenSource source) {
    }

    /** As the probes count: the usage block, else the engine's own counters, else one token per content chunk. */
    public Tokens tokens() {
        synchronized (m) {
            if (m.usageOutput != null && m.usageOutput > 0) {
                return new Tokens(m.usageOutput, m.usageInput, TokenSource.USAGE);
            }
            if (m.engineOutput != null) {
                return new Tokens(m.engineOutput, m.engineInput, TokenSource.ENGINE);
            }
            if (m.usageOutput != null) {
                return new Tokens(m.usageOutput, m.usageInput, TokenSource.USAGE);
            }
            if (m.contentChunks > 0) {
                return new Tokens((long) m.contentChunks, null, TokenSource.ESTIMATE);
            }
            return new Tokens(null, null, null);
        }
    }
}
