package io.tailwatch.core.http;

import java.io.IOException;
import java.io.InputStream;

/**
 * The body of an {@link HttpExchange} as an InputStream, so parsers can stream it: every read keeps
 * the exchange's deadline, and the stream ends with {@link TooLarge} once more than {@code max}
 * bytes came, so no caller ever holds more than it asked for.
 */
public final class BodyStream extends InputStream {
    /** The body went on past the bound; {@link #limit()} says which bound. */
    public static final class TooLarge extends IOException {
        private final long limit;

        TooLarge(long limit) {
            super("body larger than " + limit + " bytes");
            this.limit = limit;
        }

        public long limit() {
            return limit;
        }
    }

    private final HttpExchange exchange;
    private final long deadlineNanos;
    private final long max;
    private final byte[] one = new byte[1];
    private final byte[] scratch = new byte[8192];
    private long count;
    private int pos;
    private int lim;

    public BodyStream(HttpExchange exchange, long max, long deadlineNanos) {
        this.exchange = exchange;
        this.max = max;
        this.deadlineNanos = deadlineNanos;
    }

    /** Bytes read so far. */
    public long count() {
        return count;
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos == lim && !fill()) {
            return -1;
        }
        int n = Math.min(len, lim - pos);
        System.arraycopy(scratch, pos, b, off, n);
        pos += n;
        return n;
    }

    /** Reads the next piece of the body into the buffer; false at its end. */
    private boolean fill() throws IOException {
        if (count >= max) {
            // One byte more tells a body of exactly max bytes from a longer one.
            if (exchange.read(one, deadlineNanos) > 0) {
                throw new TooLarge(max);
            }
            return false;
        }
        byte[] dst = max - count >= scratch.length ? scratch : new byte[(int) (max - count)];
        int n = exchange.read(dst, deadlineNanos);
        if (n <= 0) {
            return false;
        }
        if (dst != scratch) {
            System.arraycopy(dst, 0, scratch, 0, n);
        }
        pos = 0;
        lim = n;
        count += n;
        return true;
    }
}
