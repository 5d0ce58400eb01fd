package io.tailwatch.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the exposition writer made of each series of the hub's families, kept and reused by the next scrape
 * for every series whose value has not changed: between two scrapes a probe changes a few series and a
 * host sample a few gauges, so most of the exposition is the writer's bytes of the scrape before. The
 * changed series of a family are rendered again by the writer, together, in one call. What is kept is what
 * the last scrape wrote (at most the hub's exposition bound), replaced whole by each scrape.
 *
 * <p>The series' lines serve both formats: the hub's families (gauges, counters without created timestamps,
 * info, classic histograms, no exemplars) have the same sample lines in the Prometheus text format and in
 * OpenMetrics, which differ only in the HELP/TYPE/UNIT lines (kept per format) and the closing
 * {@code # EOF}. A scraper that alternates formats reuses them too, and one copy is kept, not two.
 *
 * <p>One scrape at a time keeps what it wrote; another one running meanwhile reuses what is kept and renders
 * the rest without keeping it, so no scrape waits for another.
 */
final class RenderedChunks {
    private final ReentrantLock lock = new ReentrantLock();
    private volatile Map<String, Family> kept = Map.of();

    /** A family's HELP/TYPE/UNIT lines (Prometheus text, OpenMetrics) and its series' lines by their labels. */
    private record Family(byte[][] headers, Map<Labels, Series> series) {
    }

    /** One series' lines and what they depend on besides its labels ({@link HubCollector.Rows#key}). */
    private record Series(long[] key, byte[] bytes) {
        boolean matches(HubCollector.Rows rows, int i) {
            for (int j = 0; j < key.length; j++) {
                if (key[j] != rows.key(i, j)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Renderings of one scrape with {@code writer} ({@code openMetrics}: its format): call {@link Pass#close} at its end. */
    Pass begin(ExpositionFormatWriter writer, boolean openMetrics) {
        return new Pass(writer, openMetrics, lock.tryLock());
    }

    final class Pass implements AutoCloseable {
        private final ExpositionFormatWriter writer;
        private final int format;
        private final boolean keeping;
        private final Map<String, Family> previous;
        private final Map<String, Family> next;

        private Pass(ExpositionFormatWriter writer, boolean openMetrics, boolean keeping) {
            this.writer = writer;
            this.format = openMetrics ? 1 : 0;
            this.keeping = keeping;
            this.previous = kept;
            this.next = keeping ? new HashMap<>() : null;
        }

        /** Writes the family's lines to {@code out}, each series unchanged since the last scrape from its bytes. */
        void write(HubCollector.Rows rows, OutputStream out) throws IOException {
            HubCollector.Row[] all = rows.rows();
            Family before = previous.get(rows.family().name());
            Series[] now = new Series[all.length];
            int[] stale = new int[all.length];
            int changed = 0;
            for (int i = 0; i < all.length; i++) {
                Series s = before == null ? null : before.series().get(all[i].labels());
                if (s != null && s.matches(rows, i)) {
                    now[i] = s;
                } else {
                    stale[changed++] = i;
                }
            }
            byte[][] headers = before == null ? new byte[2][] : before.headers().clone();
            if (changed > 0 || headers[format] == null) {
                render(rows, stale, Math.max(1, changed), headers, now);
            }
            out.write(headers[format]);
            Map<Labels, Series> byLabels = keeping ? new IdentityHashMap<>(all.length * 2) : null;
            for (int i = 0; i < all.length; i++) {
                out.write(now[i].bytes());
                if (keeping) {
                    byLabels.put(all[i].labels(), now[i]);
                }
            }
            if (keeping) {
                next.put(rows.family().name(), new Family(headers, byLabels));
            }
        }

        /**
         * Renders the series {@code at[0..n)} in one call of the writer and cuts its lines into the series'
         * (a histogram series writes its buckets, count and sum: a known number of lines); the header lines
         * go to {@code headers}.
         */
        private void render(HubCollector.Rows rows, int[] at, int n, byte[][] headers, Series[] into) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream(256 * n);
            writer.write(out, new MetricSnapshots(rows.snapshot(at, n)));
            byte[] b = out.toByteArray();
            int pos = 0;
            while (b[pos] == '#') {
                pos = lineEnd(b, pos);
            }
            if (headers[format] == null) {
                headers[format] = java.util.Arrays.copyOf(b, pos);
            }
            int lines = rows.linesPerSeries();
            for (int k = 0; k < n; k++) {
                int start = pos;
                for (int l = 0; l < lines; l++) {
                    pos = lineEnd(b, pos);
                }
                long[] key = new long[rows.keyWidth()];
                for (int j = 0; j < key.length; j++) {
                    key[j] = rows.key(at[k], j);
                }
                into[at[k]] = new Series(key, java.util.Arrays.copyOfRange(b, start, pos));
            }
        }

        @Override
        public void close() {
            if (keeping) {
                kept = next;
                lock.unlock();
            }
        }
    }

    /** Where the line starting at {@code pos} ends (after its newline). */
    private static int lineEnd(byte[] b, int pos) {
        while (b[pos++] != '\n') {
            // to the end of the line
        }
        return pos;
    }
}
