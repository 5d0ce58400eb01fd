package io.tailwatch.core.probe;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Incremental newline-delimited JSON splitter: feed it bytes as they arrive, take out complete
 * lines (JSON text, not yet parsed). Blank lines are skipped; CRLF and LF both end a line; UTF-8
 * is decoded per complete line. Not thread-safe; one decoder per stream.
 */
public final class NdjsonDecoder {
    public static final int DEFAULT_MAX_LINE_BYTES = 1 << 20;

    private final LineSplitter lines;
    private final List<String> ready = new ArrayList<>();
    private boolean unterminated;

    public NdjsonDecoder() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    public NdjsonDecoder(int maxLineBytes) {
        lines = new LineSplitter(maxLineBytes, l -> {
            if (!l.isBlank()) {
                ready.add(l);
            }
        });
    }

    public List<String> feed(byte[] b, int off, int len) {
        lines.feed(b, off, len);
        return drain();
    }

    public List<String> feed(ByteBuffer bb) {
        lines.feed(bb);
        return drain();
    }

    /** End of stream: returns a last line that had no newline (see {@link #endedMidLine()}). */
    public List<String> finish() {
        unterminated = lines.finish();
        return drain();
    }

    /** True when the stream ended inside a line (after {@link #finish()}). */
    public boolean endedMidLine() {
        return unterminated;
    }

    public boolean overflowed() {
        return lines.overflowed();
    }

    private List<String> drain() {
        if (ready.isEmpty()) {
            return List.of();
        }
        List<String> out = List.copyOf(ready);
        ready.clear();
        return out;
    }
}
