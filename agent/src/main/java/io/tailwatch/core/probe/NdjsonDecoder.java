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
    /** The longest line (an Ollama chunk is a few hundred bytes; its last line a few KiB). */
    public static final int DEFAULT_MAX_LINE_BYTES = 256 * 1024;
    /** The most lines one feed returns: more is a stream shaped to hold the reader's heap. */
    public static final int MAX_PENDING_LINES = 4096;

    private final LineSplitter lines;
    private final List<String> ready = new ArrayList<>();
    private boolean unterminated;
    private boolean tooMany;

    public NdjsonDecoder() {
        this(DEFAULT_MAX_LINE_BYTES);
    }

    public NdjsonDecoder(int maxLineBytes) {
        lines = new LineSplitter(maxLineBytes, l -> {
            if (l.isBlank() || tooMany) {
                return;
            }
            if (ready.size() >= MAX_PENDING_LINES) {
                tooMany = true;
                ready.clear();
            } else {
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

    /** True when a line exceeded the size bound or one feed held too many lines: the stream is malformed. */
    public boolean overflowed() {
        return lines.overflowed() || tooMany;
    }

    /** Bytes the decoder holds between feeds (its line buffer). */
    public int held() {
        return lines.held();
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
