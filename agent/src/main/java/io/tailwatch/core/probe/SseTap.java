package io.tailwatch.core.probe;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.http.HttpTransport;
import io.tailwatch.core.http.ProbeErrors;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The proxy's reader of an OpenAI-style SSE stream (and llama.cpp's {@code /completion} stream), measured as
 * {@link OpenAiStreamParser} measures it but read where the bytes lie: lines are found in the forwarded chunk
 * itself (a line split across chunks is gathered in a buffer), an event's data is kept as bytes, and each event
 * is scanned with Jackson's streaming parser for the few fields metering needs (the first choice's content
 * and reasoning, the top-level model, an error, and the rare usage, timings and stop fields, which are read
 * as small trees and counted by the parser's own code). No String per line, no tree per event: this runs for
 * every chunk the proxy forwards. One non-blocking parser reads the whole stream, fed each event in turn as one
 * more root value: a parser made per event cost about 800 bytes of garbage a token, most of what the proxy
 * allocated. Bounded as the parser is: a line and an event's joined data at most
 * {@code maxLineBytes} bytes, an event at most {@link SseDecoder#MAX_EVENT_LINES} data lines; past a bound the
 * stream is malformed. One instance per stream, fed from one thread at a time.
 */
final class SseTap {
    private final int maxLineBytes;
    /** The part of a line that arrived without its end (a line split across chunks). */
    private byte[] line = new byte[256];
    private int lineLength;
    private boolean lastWasCr;
    /** The event's data lines, joined by LF. */
    private byte[] data = new byte[256];
    private int dataLength;
    private int dataLines;
    /** The event is named {@code error}. */
    private boolean errorEvent;
    /** The event's name when it is one of LM Studio's native chat events, else null. */
    private String lmStudioEvent;
    private final Scan scan = new Scan();
    /**
     * The stream's parser, fed one event at a time; null until the first event and after an event it did not read
     * cleanly to its end (the next event then gets a new one, so one bad event cannot spoil the rest). Renewed once
     * it has read {@link #PARSER_BYTES}: the field names it has seen stay in its symbol table while it lives, and
     * a stream of ever new names would otherwise grow that table for as long as the stream runs.
     */
    private JsonParser events;
    /** Bytes fed to {@link #events} so far. */
    private int fed;
    static final int PARSER_BYTES = 16 * 1024;
    /** An event longer than this is the last its parser reads. */
    static final int LARGE_EVENT = 4096;
    /** Parsers made for this stream so far. */
    private int parsersMade;

    SseTap(int maxLineBytes) {
        this.maxLineBytes = maxLineBytes;
    }

    int parsersMade() {
        return parsersMade;
    }

    /** Bytes of the stream that arrived at {@code nanos}. */
    void bytes(byte[] b, int off, int len, long nanos, Measurement m) {
        read(b, off, len, nanos, m);
        if (m.isFinished()) {
            // Closed now, not left to the collector: closing gives the names it learnt to the factory's table, so the
            // next stream's parser finds them there instead of learning them again.
            release();
        }
    }

    private void read(byte[] b, int off, int len, long nanos, Measurement m) {
        int end = off + len;
        int i = off;
        while (i < end) {
            if (lastWasCr) {
                lastWasCr = false;
                if (b[i] == '\n') { // the LF of a CRLF: the line ended at the CR
                    i++;
                    continue;
                }
            }
            int j = i;
            while (j < end && b[j] != '\n' && b[j] != '\r') {
                j++;
            }
            if (j == end) {
                gather(b, i, j - i, m);
                return;
            }
            lastWasCr = b[j] == '\r';
            if (lineLength == 0) {
                line(b, i, j - i, nanos, m);
            } else {
                if (!gather(b, i, j - i, m)) {
                    return;
                }
                line(line, 0, lineLength, nanos, m);
                lineLength = 0;
            }
            if (m.isFinished()) {
                return;
            }
            i = j + 1;
        }
    }

    /** The stream ended at {@code nanos}: an event it ended inside of is a cut; without its end marker it was cut. */
    void end(long nanos, Measurement m) {
        try {
            ended(nanos, m);
        } finally {
            release();
        }
    }

    private void ended(long nanos, Measurement m) {
        if (lineLength > 0) {
            line(line, 0, lineLength, nanos, m);
            lineLength = 0;
        }
        if (dataLines > 0 && !m.isFinished()) {
            // Servers that end the body right after their last data line mean the event as complete, if it is whole.
            int from = start(data, 0, dataLength);
            int to = stop(data, from, dataLength);
            if (!isDone(data, from, to) && !isJson(data, from, to)) {
                m.fail(ProbeErrors.CUT, "stream ended inside an event");
                return;
            }
            dispatch(nanos, m);
        }
        m.fail(ProbeErrors.CUT, "stream ended without data: [DONE]");
    }

    private boolean gather(byte[] b, int off, int len, Measurement m) {
        if (lineLength + len > maxLineBytes) {
            overflow(m);
            return false;
        }
        line = room(line, lineLength + len);
        System.arraycopy(b, off, line, lineLength, len);
        lineLength += len;
        return true;
    }

    private byte[] room(byte[] a, int needed) {
        if (needed <= a.length) {
            return a;
        }
        return java.util.Arrays.copyOf(a, Math.min(maxLineBytes + 1, Math.max(needed, 2 * a.length)));
    }

    private void overflow(Measurement m) {
        m.fail(ProbeErrors.MALFORMED, "SSE line or event over its bound (" + maxLineBytes + " bytes, "
                + SseDecoder.MAX_EVENT_LINES + " data lines)");
    }

    private void line(byte[] b, int off, int len, long nanos, Measurement m) {
        if (len == 0) {
            dispatch(nanos, m);
            return;
        }
        if (b[off] == ':') {
            return; // a comment: a keep-alive or a ping
        }
        int colon = off;
        int end = off + len;
        while (colon < end && b[colon] != ':') {
            colon++;
        }
        int value = colon < end ? colon + 1 : end;
        if (value < end && b[value] == ' ') {
            value++;
        }
        if (is(b, off, colon, "data")) {
            int joined = dataLines == 0 ? end - value : dataLength + 1 + end - value;
            if (joined > maxLineBytes || ++dataLines > SseDecoder.MAX_EVENT_LINES) {
                overflow(m);
                return;
            }
            data = room(data, joined);
            if (dataLines > 1) {
                data[dataLength++] = '\n';
            }
            System.arraycopy(b, value, data, dataLength, end - value);
            dataLength += end - value;
        } else if (is(b, off, colon, "event")) {
            errorEvent = is(b, value, end, "error");
            lmStudioEvent = lmStudioEvent(b, value, end);
        }
        // id, retry and unknown fields carry nothing metering needs.
    }

    private static boolean is(byte[] b, int from, int to, String ascii) {
        if (to - from != ascii.length()) {
            return false;
        }
        for (int i = 0; i < ascii.length(); i++) {
            if (b[from + i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private void dispatch(long nanos, Measurement m) {
        if (dataLines > 0) {
            int from = start(data, 0, dataLength);
            event(data, from, stop(data, from, dataLength), errorEvent, lmStudioEvent, nanos, m);
        }
        dataLength = 0;
        dataLines = 0;
        errorEvent = false;
        lmStudioEvent = null;
    }

    /** Where [from, to) starts without the leading characters String.trim drops (every byte up to a space). */
    private static int start(byte[] b, int from, int to) {
        while (from < to && (b[from] & 0xff) <= ' ') {
            from++;
        }
        return from;
    }

    /** Where [from, to) ends without the trailing characters String.trim drops. */
    private static int stop(byte[] b, int from, int to) {
        while (to > from && (b[to - 1] & 0xff) <= ' ') {
            to--;
        }
        return to;
    }

    private static boolean isDone(byte[] b, int from, int to) {
        return is(b, from, to, "[DONE]");
    }

    private static boolean isJson(byte[] b, int from, int to) {
        return OpenAiStreamParser.isJson(new String(b, from, to - from, StandardCharsets.UTF_8));
    }

    /** What one event tells, gathered while it is scanned and counted only once the whole event has been read. */
    private static final class Scan {
        boolean error;
        String model;
        boolean choices;
        int choiceChars;
        boolean content;
        int contentChars;
        /** usage, timings, stats, tokens_predicted, stop and error, as small trees; null when the event has none. */
        ObjectNode rare;

        Scan reset() {
            error = false;
            model = null;
            choices = false;
            choiceChars = 0;
            content = false;
            contentChars = 0;
            rare = null;
            return this;
        }

        void rare(String field, JsonNode value) {
            if (rare == null) {
                rare = HttpTransport.JSON.createObjectNode();
            }
            rare.set(field, value);
        }
    }

    /** The name of one of LM Studio's chat events (a name every OpenAI stream lacks: a String only then), or null. */
    private static String lmStudioEvent(byte[] b, int from, int to) {
        if (to - from > 32 || to == from) {
            return null;
        }
        String name = new String(b, from, to - from, StandardCharsets.UTF_8);
        return LmStudioChatEvents.named(name) ? name : null;
    }

    private void event(byte[] b, int from, int to, boolean named, String lmStudio, long nanos, Measurement m) {
        if (m.isFinished()) {
            return;
        }
        if (isDone(b, from, to)) {
            m.done(nanos);
            return;
        }
        Scan s = scan.reset();
        int read = readFed(b, from, to, s, m);
        if (read == REREAD) {
            s.reset();
            read = readOnce(b, from, to, s, m);
        }
        if (read != OBJECT) {
            m.fail(ProbeErrors.MALFORMED, (read == NOT_AN_OBJECT ? "SSE data is not a JSON object: " : "SSE data is not JSON: ")
                    + clip(b, from, to));
            return;
        }
        if (named || s.error) {
            m.fail(ProbeErrors.STREAM_ERROR, "error in stream: "
                    + HttpTransport.clip(s.rare == null ? "" : OpenAiStreamParser.errorText(s.rare)));
            return;
        }
        if (lmStudio != null) {
            lmStudio(lmStudio, s, b, from, to, nanos, m);
            return;
        }
        synchronized (m) {
            if (s.model != null) {
                m.responseModel = s.model;
            }
            if (s.rare != null) {
                OpenAiStreamParser.counts(s.rare, m);
            }
        }
        if (s.choiceChars > 0) {
            m.content(nanos, s.choiceChars);
        }
        if (!s.choices && s.content) {
            if (s.contentChars > 0) {
                m.content(nanos, s.contentChars);
            }
            OpenAiStreamParser.completionEnd(s.rare == null ? HttpTransport.JSON.createObjectNode() : s.rare, nanos, m);
        }
    }

    /**
     * One of LM Studio's native chat events ({@link LmStudioChatEvents}): a delta's text is what the scan counted;
     * the three events that carry figures (chat.start, model_load.end, chat.end: a few per stream) are read as the
     * probes read them, as a tree; the rest (progress, boundaries) carry nothing metering keeps.
     */
    private static void lmStudio(String event, Scan s, byte[] b, int from, int to, long nanos, Measurement m) {
        switch (event) {
            case "message.delta", "reasoning.delta" -> {
                if (s.contentChars > 0) {
                    m.content(nanos, s.contentChars);
                }
            }
            case "chat.start", "model_load.end", "chat.end" -> {
                try {
                    LmStudioChatEvents.read(event, HttpTransport.JSON.readTree(new String(b, from, to - from,
                            StandardCharsets.UTF_8)), nanos, m);
                } catch (IOException e) { // the scan read it as an object: not expected
                    m.fail(ProbeErrors.MALFORMED, "SSE data is not JSON: " + clip(b, from, to));
                }
            }
            default -> {
                // nothing the measurement keeps
            }
        }
    }

    private static String clip(byte[] b, int from, int to) {
        return HttpTransport.clip(new String(b, from, Math.min(to - from, 1024), StandardCharsets.UTF_8));
    }

    /** The stream's parser with [from, to) of {@code b} fed to it as its next input. */
    private JsonParser fed(byte[] b, int from, int to) throws IOException {
        if (events != null && fed > PARSER_BYTES) {
            release();
        }
        if (events == null) {
            events = HttpTransport.JSON.getFactory().createNonBlockingByteArrayParser();
            fed = 0;
            parsersMade++;
        }
        ((ByteArrayFeeder) events.getNonBlockingInputFeeder()).feedInput(b, from, to);
        fed += to - from;
        return events;
    }

    /** Lets go of the parser now; a later event would get a new one. */
    void release() {
        if (events != null) {
            try {
                events.close();
            } catch (IOException ignored) {
                // nothing is held but its buffers
            }
            events = null;
        }
    }

    /**
     * The next token of an event fed whole. The non-blocking parser says {@code NOT_AVAILABLE} where the event
     * ends before its JSON does; a blocking parser would have met the end of its input there, so it is that.
     */
    private static JsonToken next(JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        if (t == JsonToken.NOT_AVAILABLE) {
            throw new IOException("event ends inside its JSON");
        }
        return t;
    }

    private static final int OBJECT = 1;
    private static final int NOT_AN_OBJECT = 0;
    private static final int NOT_JSON = -1;
    private static final int REREAD = -2;

    /**
     * Reads the event on the stream's parser: OBJECT or NOT_AN_OBJECT, or REREAD where the event is to be read
     * again on a parser of its own (it failed here, or it has one of the rare fields, read as trees).
     */
    private int readFed(byte[] b, int from, int to, Scan s, Measurement m) {
        try {
            boolean object = scan(fed(b, from, to), s, m, false);
            if (!object || to - from > LARGE_EVENT || !((ByteArrayFeeder) events.getNonBlockingInputFeeder()).needMoreInput()) {
                // Not an object, or more after it: the next event starts on a new parser. After a large event too: the
                // parser's text buffer has grown to its longest string (up to twice the line bound in chars) and
                // would stay that large for as long as the stream lasts; closed, it goes back to Jackson's pool.
                release();
            }
            return object ? OBJECT : NOT_AN_OBJECT;
        } catch (IOException | RuntimeException e) {
            release();
            return REREAD;
        }
    }

    /**
     * Reads the event on a blocking parser of its own, as the probes read it: its bytes, and where they fail, the
     * bytes as the probes decode them (a byte that is not UTF-8 is U+FFFD). OBJECT, NOT_AN_OBJECT or NOT_JSON.
     */
    private static int readOnce(byte[] b, int from, int to, Scan s, Measurement m) {
        try (JsonParser once = HttpTransport.JSON.getFactory().createParser(b, from, to - from)) {
            return scan(once, s, m, true) ? OBJECT : NOT_AN_OBJECT;
        } catch (IOException | RuntimeException e) {
            byte[] decoded = new String(b, from, to - from, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
            s.reset();
            try (JsonParser again = HttpTransport.JSON.getFactory().createParser(decoded)) {
                return scan(again, s, m, true) ? OBJECT : NOT_AN_OBJECT;
            } catch (IOException | RuntimeException notJson) {
                return NOT_JSON;
            }
        }
    }

    /**
     * Thrown where a field is to be read as a tree on the stream's parser: Jackson's tree reader is for a blocking
     * parser (on a non-blocking one, an event cut inside an array of objects had it add empty objects without end),
     * so such an event, a few per stream, is read again on a parser of its own.
     */
    private static final class Reread extends IOException {
        private static final Reread ONE = new Reread();

        private Reread() {
            super("read as a tree on a parser of its own");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // one shared instance, thrown as a signal: no stack to keep
        }
    }

    /**
     * Scans one event's JSON, the parser's next root value; false when it is not an object. {@code trees}: the rare
     * fields may be read as trees here (a blocking parser); else they throw {@link Reread}.
     */
    private static boolean scan(JsonParser p, Scan s, Measurement m, boolean trees) throws IOException {
        if (next(p) != JsonToken.START_OBJECT) {
            return false;
        }
        JsonToken t;
        while (next(p) == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            t = next(p);
            switch (f) {
                case "model" -> s.model = t == JsonToken.VALUE_NULL ? null : text(p, t, m.responseModel);
                case "error" -> {
                    s.error = t != JsonToken.VALUE_NULL;
                    s.rare(f, tree(p, trees));
                }
                case "usage", "timings", "stats", "tokens_predicted", "stop" -> s.rare(f, tree(p, trees));
                case "choices" -> {
                    s.choices = true;
                    s.choiceChars = t == JsonToken.START_ARRAY ? firstChoice(p) : skip(p);
                }
                case "content" -> {
                    s.content = true;
                    s.contentChars = length(p, t);
                }
                default -> p.skipChildren();
            }
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            throw new IOException("not a whole JSON object");
        }
        return true;
    }

    private static JsonNode tree(JsonParser p, boolean trees) throws IOException {
        if (!trees) {
            throw Reread.ONE;
        }
        return HttpTransport.JSON.readTree(p);
    }

    /** A value's text as JsonNode.asText gives it ("" for an object or array); {@code known} again when it is that. */
    private static String text(JsonParser p, JsonToken t, String known) throws IOException {
        if (t.isStructStart()) {
            p.skipChildren();
            return "";
        }
        if (t == JsonToken.VALUE_STRING && known != null && p.getTextLength() == known.length()) {
            char[] c = p.getTextCharacters();
            int o = p.getTextOffset();
            boolean same = true;
            for (int i = 0; i < known.length() && same; i++) {
                same = c[o + i] == known.charAt(i);
            }
            if (same) {
                return known;
            }
        }
        return p.getText();
    }

    private static int length(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getTextLength();
        }
        return skip(p);
    }

    private static int skip(JsonParser p) throws IOException {
        p.skipChildren();
        return 0;
    }

    /** The content and reasoning characters of the first choice (its delta, or its message when it has no delta, and its text). */
    private static int firstChoice(JsonParser p) throws IOException {
        JsonToken t = next(p);
        int chars = 0;
        if (t == JsonToken.START_OBJECT) {
            boolean delta = false;
            int deltaChars = 0;
            int messageChars = 0;
            int textChars = 0;
            while (next(p) == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken v = next(p);
                switch (f) {
                    case "delta" -> {
                        delta = true;
                        deltaChars = v == JsonToken.START_OBJECT ? message(p) : skip(p);
                    }
                    case "message" -> messageChars = v == JsonToken.START_OBJECT ? message(p) : skip(p);
                    case "text" -> textChars = length(p, v);
                    default -> p.skipChildren();
                }
            }
            chars = (delta ? deltaChars : messageChars) + textChars;
        } else if (t != JsonToken.END_ARRAY) {
            p.skipChildren();
        }
        while (t != JsonToken.END_ARRAY) { // the other choices are not read
            t = next(p);
            if (t == null) {
                throw new IOException("choices without their end");
            }
            p.skipChildren();
        }
        return chars;
    }

    /** A delta's or message's content and reasoning characters, under any of their names. */
    private static int message(JsonParser p) throws IOException {
        int content = 0;
        int reasoning = 0;
        int reasoningContent = 0;
        int thinking = 0;
        while (next(p) == JsonToken.FIELD_NAME) {
            String f = p.currentName();
            JsonToken v = next(p);
            switch (f) {
                case "content" -> content = length(p, v);
                case "reasoning" -> reasoning = length(p, v);
                case "reasoning_content" -> reasoningContent = length(p, v);
                case "thinking" -> thinking = length(p, v);
                default -> p.skipChildren();
            }
        }
        return content + reasoning + reasoningContent + thinking;
    }
}
