package io.tailwatch.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the exposition writer made of each series of the hub's families, kept and reused by the next scrape.
 * The writer renders a series when it first appears: its lines are kept cut in two, what comes before each
 * value (name, labels with their escaping, {@code le}: the same while the series lives) and the values. A
 * scrape writes a series whose value has not changed from what is kept; one whose value changed gets its
 * values formatted again the way the writer formats them ({@code +Inf}, {@code -Inf}, {@link Double#toString},
 * whole counts as decimal longs) behind the writer's own line beginnings, so between two scrapes the writer
 * runs only for the series that are new. That this formatting is the writer's, for every double, is
 * RenderedSeriesTest's to prove (against the client version the build uses). What is kept is what the last
 * scrape wrote (at most the hub's series), replaced whole by each scrape, so a series gone from the hub is gone
 * from what is kept too.
 *
 * <p>A kept series is found by the attribute map the hub keeps for it (a producer's series from publish to
 * publish, a histogram series in every copy), and its place in the last scrape orders it while its family has
 * no new series; a family with a new one is ordered by the client labels of its series, built for that.
 *
 * <p>The series' lines serve both formats: the hub's families (gauges, counters without created timestamps,
 * info, classic histograms, no exemplars) have the same sample lines in the Prometheus text format and in
 * OpenMetrics, which differ only in the HELP/TYPE/UNIT lines (kept per format) and the closing
 * {@code # EOF}. A scraper that alternates formats reuses them too, and one copy is kept, not two.
 *
 * <p>One scrape at a time keeps what it wrote; another one running meanwhile reuses what is kept and renders
 * the rest without keeping it, so no scrape waits for another (nor for a slow reader of another's response).
 */
final class RenderedChunks {
    /** The bytes a scrape gathers before it writes them on (the writes a response sees). */
    static final int CHUNK = 8192;
    /** Lines of new series rendered in one call of the writer: under 400 KiB even where every label is 128 three-byte characters. */
    static final int RENDER_LINES = 256;
    static final byte[] EOF = "# EOF\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final ReentrantLock lock = new ReentrantLock();
    private volatile Map<String, Family> kept = Map.of();
    /** Series the writer rendered, and series written with new values behind their kept lines, since this began. */
    private final java.util.concurrent.atomic.AtomicLong byWriter = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong revalued = new java.util.concurrent.atomic.AtomicLong();

    /**
     * A family's HELP/TYPE/UNIT lines (Prometheus text, OpenMetrics) and its series in the exposition's order,
     * each found by its attribute map ({@code at}: where it stands).
     */
    private record Family(byte[][] headers, Map<Map<String, String>, Integer> at, Series[] series) {
        static final Family NONE = new Family(new byte[2][], Map.of(), new Series[0]);
    }

    /**
     * One series: the writer's lines without their values ({@code heads}, line {@code l} ending at
     * {@code headEnds[l]}, each with the space before its value), what it shows ({@link HubCollector.Rows#sample})
     * and its values, each with its newline (line {@code l}'s ending at {@code valueEnds[l]}). The heads are
     * shared by every value the series shows.
     */
    private record Series(byte[] heads, int[] headEnds, long[] sample, byte[] values, int[] valueEnds) {
    }

    /**
     * Renderings of one scrape with {@code writer} ({@code openMetrics}: its format), gathered into writes of
     * at most {@link #CHUNK} bytes to {@code out}: call {@link Pass#close} at its end.
     */
    Pass begin(ExpositionFormatWriter writer, boolean openMetrics, OutputStream out) {
        return new Pass(writer, openMetrics, lock.tryLock(), out);
    }

    /** Series kept for the next scrape (the series of the hub's families the last keeping scrape wrote). */
    int keptSeries() {
        int n = 0;
        for (Family f : kept.values()) {
            n += f.series().length;
        }
        return n;
    }

    /** Series the writer rendered so far (each new series once). */
    long renderedByWriter() {
        return byWriter.get();
    }

    /** Series written so far with new values behind the writer's kept lines. */
    long revalued() {
        return revalued.get();
    }

    final class Pass implements Closeable {
        private final ExpositionFormatWriter writer;
        private final int format;
        private final boolean keeping;
        private final Map<String, Family> previous = kept;
        private final Map<String, Family> next = new HashMap<>();
        private final Chunks out;
        private final Bytes heads = new Bytes();
        private final Bytes values = new Bytes();
        private final Bytes rendered = new Bytes();

        private Pass(ExpositionFormatWriter writer, boolean openMetrics, boolean keeping, OutputStream out) {
            this.writer = writer;
            this.format = openMetrics ? 1 : 0;
            this.keeping = keeping;
            this.out = new Chunks(new byte[CHUNK], out);
        }

        /**
         * Writes the families in {@code batch} (not the hub's), if any, in one call of the writer, and empties
         * it. The writer's bytes are gathered first: it flushes at the end of every call (passed on to a
         * response, each flush would send a chunk of its own), and in OpenMetrics every call ends with
         * {@code # EOF}, dropped here (the exposition ends with one).
         */
        void write(List<MetricSnapshot> batch) throws IOException {
            if (batch.isEmpty()) {
                return;
            }
            rendered.reset();
            try {
                writer.write(rendered, new MetricSnapshots(batch));
                int n = rendered.size - (format == 1 && rendered.endsWith(EOF) ? EOF.length : 0);
                out.write(rendered.bytes, 0, n);
            } finally {
                rendered.shrink();
                batch.clear();
            }
        }

        /**
         * Writes the family's lines to {@code out}, its series in the order of their labels: each unchanged
         * since the last scrape from its kept bytes, each changed one with its values formatted again, each new
         * one as the writer renders it. While the family has no new series their places in the last scrape
         * order them (the same order, found without comparing labels).
         */
        void write(HubCollector.Rows rows) throws IOException {
            HubCollector.Row[] all = rows.rows();
            Family before = previous.getOrDefault(rows.family().name(), Family.NONE);
            Series[] had = new Series[all.length];
            long[] places = new long[all.length];
            boolean known = true;
            for (int i = 0; i < all.length; i++) {
                Integer at = before.at().get(all[i].attributes());
                if (at == null) {
                    known = false;
                } else {
                    had[i] = before.series()[at];
                    places[i] = (long) at << 32 | i;
                }
            }
            int[] order = HubCollector.order(known ? places : HubCollector.places(rows.labels()));
            Series[] now = new Series[order.length];
            int[] fresh = new int[order.length];
            int news = 0;
            int changed = 0;
            long[] sample = new long[rows.sampleWidth()];
            for (int k = 0; k < order.length; k++) {
                Series s = had[order[k]];
                if (s == null) {
                    fresh[news++] = k;
                    continue;
                }
                rows.sample(order[k], sample);
                if (Arrays.equals(s.sample(), sample)) {
                    now[k] = s;
                } else {
                    values.reset();
                    int[] ends = format(rows.family().kind(), sample, values);
                    now[k] = new Series(s.heads(), s.headEnds(), sample.clone(), values.copy(), ends);
                    changed++;
                }
            }
            revalued.addAndGet(changed);
            byte[][] headers = before.headers().clone();
            if (news > 0 || headers[format] == null) {
                // with no new series, the first one again (for the header lines of this format)
                for (int from = 0, step = Math.max(1, RENDER_LINES / rows.linesPerSeries()); from < Math.max(1, news); from += step) {
                    int n = Math.min(step, Math.max(1, news) - from);
                    render(rows, order, Arrays.copyOfRange(fresh, from, from + n), n, headers, now);
                }
            }
            out.write(headers[format], 0, headers[format].length);
            for (Series s : now) {
                out.interleave(s.heads(), s.headEnds(), s.values(), s.valueEnds());
            }
            Map<Map<String, String>, Integer> at = before.at();
            if (!known || now.length != before.series().length) {
                at = new IdentityHashMap<>(now.length * 2);
                for (int k = 0; k < now.length; k++) {
                    at.put(all[order[k]].attributes(), k);
                }
            }
            next.put(rows.family().name(), new Family(headers, at, now));
        }

        /**
         * Renders the series {@code order[fresh[0..n)]} in one call of the writer and cuts its lines into the
         * series' (a histogram series writes its buckets, count and sum: a known number of lines); the header
         * lines go to {@code headers}.
         */
        private void render(HubCollector.Rows rows, int[] order, int[] fresh, int n, byte[][] headers, Series[] into)
                throws IOException {
            Labels[] ls = new Labels[n];
            long[][] samples = new long[n][rows.sampleWidth()];
            for (int k = 0; k < n; k++) {
                ls[k] = rows.labels(order[fresh[k]]);
                rows.sample(order[fresh[k]], samples[k]);
            }
            rendered.reset();
            try {
                writer.write(rendered, new MetricSnapshots(rows.snapshot(ls, samples, n)));
                byWriter.addAndGet(n);
                byte[] b = rendered.bytes;
                int pos = 0;
                while (b[pos] == '#') {
                    pos = lineEnd(b, pos);
                }
                if (headers[format] == null) {
                    headers[format] = Arrays.copyOf(b, pos);
                }
                for (int k = 0; k < n; k++) {
                    int[] headEnds = new int[rows.linesPerSeries()];
                    int[] valueEnds = new int[headEnds.length];
                    heads.reset();
                    values.reset();
                    for (int l = 0; l < headEnds.length; l++) {
                        int end = lineEnd(b, pos);
                        int value = lastSpace(b, pos, end) + 1;
                        heads.write(b, pos, value - pos);
                        values.write(b, value, end - value);
                        headEnds[l] = heads.size;
                        valueEnds[l] = values.size;
                        pos = end;
                    }
                    into[fresh[k]] = new Series(heads.copy(), headEnds, samples[k], values.copy(), valueEnds);
                }
            } finally {
                rendered.shrink();
            }
        }

        /** Passes on what is gathered; the pass that holds the lock leaves what it wrote for the next scrape. */
        @Override
        public void close() throws IOException {
            try {
                out.flush();
            } finally {
                if (keeping) {
                    kept = next;
                    lock.unlock();
                }
            }
        }
    }

    /**
     * A series' sample ({@link HubCollector.Rows#sample}) as its lines' values, each with its newline, the way
     * the client's writers format them: a histogram's cumulative bucket counts and its count as decimal longs,
     * its sum and every other value as {@code +Inf}, {@code -Inf} or {@link Double#toString}; an info
     * series' 1. Returns where each line's value ends in {@code out}.
     */
    static int[] format(HubCollector.Kind kind, long[] sample, Bytes out) {
        if (kind == HubCollector.Kind.INFO) {
            out.ascii("1\n");
            return new int[] {out.size};
        }
        if (kind != HubCollector.Kind.HISTOGRAM) {
            out.ascii(doubleText(Double.longBitsToDouble(sample[0])));
            out.ascii("\n");
            return new int[] {out.size};
        }
        int buckets = sample.length - 1;
        int[] ends = new int[buckets + 2];
        long cumulative = 0;
        for (int i = 0; i < buckets; i++) {
            cumulative += sample[i];
            out.decimal(cumulative);
            ends[i] = out.size;
        }
        out.decimal(cumulative);
        ends[buckets] = out.size;
        out.ascii(doubleText(Double.longBitsToDouble(sample[buckets])));
        out.ascii("\n");
        ends[buckets + 1] = out.size;
        return ends;
    }

    private static String doubleText(double d) {
        return d == Double.POSITIVE_INFINITY ? "+Inf" : d == Double.NEGATIVE_INFINITY ? "-Inf" : Double.toString(d);
    }

    /** Where the line starting at {@code pos} ends (after its newline). */
    private static int lineEnd(byte[] b, int pos) {
        while (b[pos++] != '\n') {
            // to the end of the line
        }
        return pos;
    }

    /** The last space of {@code b[from..to)}: the one before a sample line's value (a value has none). */
    private static int lastSpace(byte[] b, int from, int to) {
        int at = to - 1;
        while (b[at] != ' ') {
            at--;
        }
        if (at < from) {
            throw new IllegalStateException("a sample line without a value");
        }
        return at;
    }

    /** A growable byte buffer, reused from rendering to rendering. */
    static final class Bytes extends OutputStream {
        byte[] bytes = new byte[1024];
        int size;

        void reset() {
            size = 0;
        }

        byte[] copy() {
            return Arrays.copyOf(bytes, size);
        }

        boolean endsWith(byte[] tail) {
            return size >= tail.length && Arrays.equals(bytes, size - tail.length, size, tail, 0, tail.length);
        }

        /** Lets go of a buffer grown past {@link #CHUNK} (a family rendered whole), keeping a small one for next time. */
        void shrink() {
            if (bytes.length > CHUNK) {
                bytes = new byte[1024];
            }
            size = 0;
        }

        @Override
        public void write(int b) {
            room(1);
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            room(len);
            System.arraycopy(b, off, bytes, size, len);
            size += len;
        }

        /** Appends {@code s}, whose characters are all ASCII. */
        void ascii(String s) {
            room(s.length());
            for (int i = 0; i < s.length(); i++) {
                bytes[size++] = (byte) s.charAt(i);
            }
        }

        /** Appends {@code v} in decimal and a newline. */
        void decimal(long v) {
            if (v < 0) {
                ascii(Long.toString(v));
                write('\n');
                return;
            }
            int digits = 1;
            for (long t = v; t >= 10; t /= 10) {
                digits++;
            }
            room(digits + 1);
            int at = size + digits;
            for (int i = 1; i <= digits; i++) {
                bytes[at - i] = (byte) ('0' + v % 10);
                v /= 10;
            }
            size = at;
            bytes[size++] = '\n';
        }

        private void room(int more) {
            if (size + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
            }
        }
    }

    /** Gathers writes into a chunk and passes each full chunk on, in writes of at most {@link #CHUNK} bytes. */
    static final class Chunks {
        private final byte[] chunk;
        private final OutputStream out;
        private int size;

        Chunks(byte[] chunk, OutputStream out) {
            this.chunk = chunk;
            this.out = out;
        }

        void write(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                if (size == chunk.length) {
                    flush();
                }
                int n = Math.min(len, chunk.length - size);
                System.arraycopy(b, off, chunk, size, n);
                size += n;
                off += n;
                len -= n;
            }
        }

        /**
         * Appends line after line, each made of {@code a}'s piece and {@code b}'s (line {@code l}'s ending at
         * {@code aEnds[l]}, {@code bEnds[l]}), passing the chunk on where the next line does not fit.
         */
        void interleave(byte[] a, int[] aEnds, byte[] b, int[] bEnds) throws IOException {
            int ai = 0;
            int bi = 0;
            for (int l = 0; l < aEnds.length; l++) {
                int an = aEnds[l] - ai;
                int bn = bEnds[l] - bi;
                if (an + bn > chunk.length - size) {
                    flush();
                }
                if (an + bn > chunk.length) {
                    write(a, ai, an);
                    write(b, bi, bn);
                } else {
                    System.arraycopy(a, ai, chunk, size, an);
                    System.arraycopy(b, bi, chunk, size + an, bn);
                    size += an + bn;
                }
                ai = aEnds[l];
                bi = bEnds[l];
            }
        }

        /** Passes on what is gathered. */
        void flush() throws IOException {
            if (size > 0) {
                out.write(chunk, 0, size);
                size = 0;
            }
        }
    }
}
