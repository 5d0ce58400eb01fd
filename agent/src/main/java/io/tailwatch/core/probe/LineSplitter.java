package io.tailwatch.core.probe;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Splits a byte stream into lines ending in LF, CRLF or CR, however the bytes are split across
 * reads. A line is decoded as UTF-8 only once it is complete, so a multi-byte character split
 * between two reads is never torn (line terminators cannot occur inside a UTF-8 sequence).
 * Invalid UTF-8 becomes U+FFFD, which the JSON layer then rejects as malformed. A line is decoded straight into a
 * String (the JDK's own UTF-8 path, which has a fast path for ASCII): no decoder, char buffer or second copy per line,
 * which matters to the metering proxy's tap, run once per forwarded chunk.
 */
final class LineSplitter {
    private final int maxLineBytes;
    private final Consumer<String> sink;
    private byte[] buf = new byte[256];
    private int len;
    private boolean lastWasCr;
    private boolean overflow;

    LineSplitter(int maxLineBytes, Consumer<String> sink) {
        this.maxLineBytes = maxLineBytes;
        this.sink = sink;
    }

    /** True once a line exceeded the bound; its bytes were dropped and the stream should be failed. */
    boolean overflowed() {
        return overflow;
    }

    /** Bytes the splitter holds now (its line buffer's capacity). */
    int held() {
        return buf.length;
    }

    void feed(byte[] b, int off, int n) {
        for (int i = off; i < off + n; i++) {
            byte c = b[i];
            if (c == '\n') {
                if (lastWasCr) {
                    lastWasCr = false; // the LF of a CRLF: the line was already emitted at the CR
                    continue;
                }
                emit();
            } else if (c == '\r') {
                lastWasCr = true;
                emit();
            } else {
                lastWasCr = false;
                append(c);
            }
        }
    }

    void feed(ByteBuffer bb) {
        if (bb.hasArray()) {
            feed(bb.array(), bb.arrayOffset() + bb.position(), bb.remaining());
            bb.position(bb.limit());
        } else {
            byte[] tmp = new byte[bb.remaining()];
            bb.get(tmp);
            feed(tmp, 0, tmp.length);
        }
    }

    /** End of stream: returns true when an unterminated last line was pending (and emits it). */
    boolean finish() {
        if (len > 0) {
            emit();
            return true;
        }
        return false;
    }

    private void append(byte c) {
        if (len >= maxLineBytes) {
            overflow = true;
            return;
        }
        if (len == buf.length) {
            buf = Arrays.copyOf(buf, Math.min(maxLineBytes, buf.length * 2));
        }
        buf[len++] = c;
    }

    private void emit() {
        // Malformed input is replaced (U+FFFD for each bad sequence), never thrown.
        String line = len == 0 ? "" : new String(buf, 0, len, StandardCharsets.UTF_8);
        len = 0;
        if (buf.length > 4096) {
            buf = new byte[256];
        }
        sink.accept(line);
    }
}
