package io.tailwatch.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;

/**
 * What /metrics writes: the exposition streamed to the response as it is rendered, at most one
 * rendering per format and {@code reuseNanos} while it fits the copy bound (a client that pipelines
 * scrapes costs bytes to write, not a rendering each). The rendering that starts a reuse interval is
 * copied, as it streams out, into a buffer of fixed-size chunks kept for that format and reused by every
 * later rendering, so a scrape allocates no copy of the body; scrapes within the interval are written
 * from those chunks.
 *
 * <p>No scrape waits for another: one whose format is being rendered, or whose stale copy is still being
 * written to a slow client, renders its own stream without keeping a copy. The copy is bounded
 * ({@code maxBytes}): a larger exposition is still streamed whole, just not kept, and rendered at each
 * scrape. The chunks it filled up to the bound stay for the next rendering, so a large exposition neither
 * holds more than the bound nor allocates a new copy at every scrape.
 */
public final class ScrapeReplay {
    static final int CHUNK_BYTES = 16 * 1024;

    private final PrometheusExporter exporter;
    private final long reuseNanos;
    private final long maxBytes;
    private final LongSupplier nanoTime;
    private final Map<String, Copy> copies = new ConcurrentHashMap<>();

    public ScrapeReplay(PrometheusExporter exporter, long reuseNanos, long maxBytes) {
        this(exporter, reuseNanos, maxBytes, System::nanoTime);
    }

    ScrapeReplay(PrometheusExporter exporter, long reuseNanos, long maxBytes, LongSupplier nanoTime) {
        this.exporter = exporter;
        this.reuseNanos = reuseNanos;
        this.maxBytes = maxBytes;
        this.nanoTime = nanoTime;
    }

    /** The kept copy of one format: chunks reused from rendering to rendering. */
    private static final class Copy {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        final List<byte[]> chunks = new ArrayList<>();
        long length;
        long at;
        boolean valid;
        long renderings;
    }

    /** Writes the exposition the Accept header asks for to {@code out} (not closed). */
    public void writeTo(String accept, OutputStream out) throws IOException {
        Copy c = copies.computeIfAbsent(exporter.contentType(accept), t -> new Copy());
        ReentrantReadWriteLock.ReadLock read = c.lock.readLock();
        if (read.tryLock()) {
            try {
                if (c.valid && nanoTime.getAsLong() - c.at <= reuseNanos) {
                    replay(c, out);
                    return;
                }
            } finally {
                read.unlock();
            }
        }
        ReentrantReadWriteLock.WriteLock write = c.lock.writeLock();
        if (!write.tryLock()) {
            exporter.scrape(accept, out);
            return;
        }
        try {
            c.valid = false;
            long started = nanoTime.getAsLong();
            Tee tee = new Tee(out, c, maxBytes);
            exporter.scrape(accept, tee);
            c.renderings++;
            if (!tee.overflowed) {
                c.length = tee.length;
                c.at = started;
                c.valid = true;
                // A smaller exposition than before gives back the chunks it no longer needs.
                int needed = (int) ((tee.length + CHUNK_BYTES - 1) / CHUNK_BYTES);
                while (c.chunks.size() > needed) {
                    c.chunks.remove(c.chunks.size() - 1);
                }
            }
        } finally {
            write.unlock();
        }
    }

    /** Renderings so far (each one started a reuse interval) of the format of {@code accept} (tests). */
    long renderings(String accept) {
        Copy c = copies.get(exporter.contentType(accept));
        return c == null ? 0 : c.renderings;
    }

    /** Bytes held for the kept copies, chunks included (tests, docs). */
    long heldBytes() {
        long n = 0;
        for (Copy c : copies.values()) {
            n += (long) c.chunks.size() * CHUNK_BYTES;
        }
        return n;
    }

    private static void replay(Copy c, OutputStream out) throws IOException {
        long left = c.length;
        for (int i = 0; left > 0; i++) {
            int n = (int) Math.min(CHUNK_BYTES, left);
            out.write(c.chunks.get(i), 0, n);
            left -= n;
        }
    }

    /** Writes to the response and copies into the kept chunks while the copy fits. */
    private static final class Tee extends OutputStream {
        private final OutputStream out;
        private final Copy copy;
        private final long max;
        long length;
        boolean overflowed;

        Tee(OutputStream out, Copy copy, long max) {
            this.out = out;
            this.copy = copy;
            this.max = max;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            if (overflowed) {
                return;
            }
            if (length + len > max) {
                overflowed = true;
                return;
            }
            while (len > 0) {
                int chunk = (int) (length / CHUNK_BYTES);
                int at = (int) (length % CHUNK_BYTES);
                if (chunk == copy.chunks.size()) {
                    copy.chunks.add(new byte[CHUNK_BYTES]);
                }
                int n = Math.min(len, CHUNK_BYTES - at);
                System.arraycopy(b, off, copy.chunks.get(chunk), at, n);
                off += n;
                len -= n;
                length += n;
            }
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }
}
