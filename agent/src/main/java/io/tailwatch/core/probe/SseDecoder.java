package io.tailwatch.core.probe;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Incremental Server-Sent Events decoder: feed it bytes as they arrive, take out complete events.
 * Follows the parts of the SSE format LLM servers use: {@code data:} lines (with or without a
 * space after the colon, several joined by newlines), {@code event:} and {@code id:}, comment
 * lines starting with ':' (prefill keep-alives, pings; counted, not returned), LF, CRLF or CR line
 * ends, and an event ends at a blank line. Not thread-safe; one decoder per stream.
 *
 * <p>Bounded by what it holds, not only line by line: one line at most {@code maxLineBytes}, one event's
 * joined {@code data:} at most {@code maxLineBytes} characters and {@link #MAX_EVENT_LINES} lines, at most
 * {@link #MAX_PENDING_EVENTS} events taken out per feed. Past any bound the event's data is dropped and
 * {@link #overflowed()} says the stream is malformed, so many short lines cost no more than one long one.
 */
public final class SseDecoder {
    /** One dispatched event. {@code event} is null when the server named none. */
    public record Event(String event, String data, String id) {
    }

    /** The longest line, and the longest joined data of one event (an LLM chunk is a few hundred bytes). */
    public static final int DEFAULT_MAX_LINE_BYTES = 256 * 1024;
    /** The most {@code data:} lines one event joins (servers send one per event). */
    public static final int MAX_EVENT_LINES = 1024;
    /** The most events one feed returns: more is a stream shaped to hold the reader's heap. */
    public static final int MAX_PENDING_EVENTS = 4096;

    private final LineSplitter lines;
    private final int maxEventChars;
    private final List<Event> ready = new ArrayList<>();
    /** The event's first data line; {@link #joined} takes over when a second one comes (servers send one). */
    private String data;
    private StringBuilder joined;
    private int dataLines;
    private boolean eventOverflow;
    private String eventName;
    private String id;
    private long comments;

    public SseDecoder() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    public SseDecoder(int maxLineBytes) {
        lines = new LineSplitter(maxLineBytes, this::line);
        maxEventChars = maxLineBytes;
    }

    /** Feeds bytes; returns the events completed by them (possibly none). */
    public List<Event> feed(byte[] b, int off, int len) {
        lines.feed(b, off, len);
        return drain();
    }

    public List<Event> feed(ByteBuffer bb) {
        lines.feed(bb);
        return drain();
    }

    /**
     * End of stream. An event whose data lines were not closed by a blank line is still returned:
     * servers that end the body right after their last {@code data:} line mean it as complete.
     */
    public List<Event> finish() {
        lines.finish();
        dispatch();
        return drain();
    }

    /** Comment lines seen so far (keep-alives during prefill, pings). */
    public long comments() {
        return comments;
    }

    /** True when a line exceeded the size bound; the stream should be treated as malformed. */
    public boolean overflowed() {
        return lines.overflowed() || eventOverflow;
    }

    /** Characters and bytes the decoder holds between feeds: its line buffer and the event being joined. */
    public int held() {
        return lines.held() + (joined != null ? joined.capacity() : data == null ? 0 : data.length());
    }

    private List<Event> drain() {
        if (ready.isEmpty()) {
            return List.of();
        }
        List<Event> out = List.copyOf(ready);
        ready.clear();
        return out;
    }

    private void line(String line) {
        if (line.isEmpty()) {
            dispatch();
            return;
        }
        if (line.charAt(0) == ':') {
            comments++;
            return;
        }
        // The field name is compared in place and the value cut out once (this runs for every line of every
        // stream the proxy meters).
        int colon = line.indexOf(':');
        int nameEnd = colon < 0 ? line.length() : colon;
        int valueStart = colon < 0 ? line.length() : colon + 1;
        if (valueStart < line.length() && line.charAt(valueStart) == ' ') {
            valueStart++;
        }
        if (is(line, nameEnd, "data")) {
            data(line.substring(valueStart));
        } else if (is(line, nameEnd, "event")) {
            eventName = clip(line.substring(valueStart));
        } else if (is(line, nameEnd, "id")) {
            id = clip(line.substring(valueStart));
        }
        // "retry" and unknown fields carry nothing a probe needs.
    }

    /** True when the first {@code nameEnd} characters of {@code line} are exactly {@code field}. */
    private static boolean is(String line, int nameEnd, String field) {
        return nameEnd == field.length() && line.startsWith(field);
    }

    /** Names and ids are kept short: only {@code data} may be long. */
    private static String clip(String v) {
        return v.length() > 256 ? v.substring(0, 256) : v;
    }

    private void data(String value) {
        if (eventOverflow) {
            return;
        }
        int had = joined != null ? joined.length() : data == null ? -1 : data.length();
        int length = had < 0 ? value.length() : had + 1 + value.length();
        if (length > maxEventChars || ++dataLines > MAX_EVENT_LINES) {
            overflow();
            return;
        }
        if (data == null) {
            data = value;
        } else {
            if (joined == null) {
                joined = new StringBuilder(data);
            }
            joined.append('\n').append(value);
        }
    }

    private void overflow() {
        eventOverflow = true;
        data = null;
        joined = null;
        ready.clear();
    }

    private void dispatch() {
        if (data != null && !eventOverflow) {
            if (ready.size() >= MAX_PENDING_EVENTS) {
                overflow();
            } else {
                ready.add(new Event(eventName, joined != null ? joined.toString() : data, id));
            }
        }
        data = null;
        joined = null;
        dataLines = 0;
        eventName = null;
    }
}
