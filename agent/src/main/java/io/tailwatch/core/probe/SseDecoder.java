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
 */
public final class SseDecoder {
    /** One dispatched event. {@code event} is null when the server named none. */
    public record Event(String event, String data, String id) {
    }

    public static final int DEFAULT_MAX_LINE_BYTES = 1 << 20;

    private final LineSplitter lines;
    private final List<Event> ready = new ArrayList<>();
    private StringBuilder data;
    private String eventName;
    private String id;
    private long comments;

    public SseDecoder() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    public SseDecoder(int maxLineBytes) {
        lines = new LineSplitter(maxLineBytes, this::line);
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
        return lines.overflowed();
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
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        switch (field) {
            case "data" -> {
                if (data == null) {
                    data = new StringBuilder(value);
                } else {
                    data.append('\n').append(value);
                }
            }
            case "event" -> eventName = value;
            case "id" -> id = value;
            default -> {
                // "retry" and unknown fields carry nothing a probe needs.
            }
        }
    }

    private void dispatch() {
        if (data != null) {
            ready.add(new Event(eventName, data.toString(), id));
        }
        data = null;
        eventName = null;
    }
}
