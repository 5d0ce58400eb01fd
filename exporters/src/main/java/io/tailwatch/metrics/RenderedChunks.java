package io.tailwatch.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the exposition writer made of the hub's families, kept in runs of consecutive series
 * (about {@value #CHUNK_LINES} sample lines each) and reused by the next scrape for every run whose series
 * and values have not changed: between two scrapes a probe changes a few series and a host sample a few
 * gauges, so most of the exposition is the writer's bytes of the scrape before. A changed run is rendered
 * again, by the writer, alone. What is kept is what the last scrape wrote (at most the hub's exposition bound),
 * replaced whole by each scrape.
 *
 * <p>The runs serve both formats: the hub's families (gauges, counters without created timestamps, info,
 * classic histograms, no exemplars) have the same sample lines in the Prometheus text format and in
 * OpenMetrics, which differ only in the HELP/TYPE/UNIT lines (kept per format) and the closing
 * {@code # EOF}. A scraper that alternates formats reuses them too, and one copy is kept, not two.
 *
 * <p>One scrape at a time keeps its runs; another one running meanwhile reuses what is kept and renders
 * the rest without keeping it, so no scrape waits for another.
 */
final class RenderedChunks {
    static final int CHUNK_LINES = 24;
    /** The largest single write to the response (the writers' own buffer size). */
    static final int MAX_WRITE = 8192;

    private final ReentrantLock lock = new ReentrantLock();
    private volatile Map<String, Family> kept = Map.of();

    /** A family's HELP/TYPE/UNIT lines (Prometheus text, OpenMetrics) and its runs. */
    private record Family(byte[][] headers, Chunk[] chunks) {
    }

    /**
     * One run: its series' labels (one object per label set, see {@link HubCollector}), what their rendering
     * depends on besides ({@link HubCollector.Rows#key}), and their sample lines.
     */
    private record Chunk(Labels[] labels, long[] key, byte[] bytes) {
        boolean matches(HubCollector.Rows rows, int from, int to) {
            if (labels.length != to - from) {
                return false;
            }
            int width = rows.keyWidth();
            for (int i = from; i < to; i++) {
                if (rows.rows()[i].labels() != labels[i - from]) {
                    return false;
                }
                for (int j = 0; j < width; j++) {
                    if (key[(i - from) * width + j] != rows.key(i, j)) {
                        return false;
                    }
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
        private final boolean openMetrics;
        private final boolean keeping;
        private final Map<String, Family> previous;
        private final Map<String, Family> next;

        private Pass(ExpositionFormatWriter writer, boolean openMetrics, boolean keeping) {
            this.writer = writer;
            this.openMetrics = openMetrics;
            this.keeping = keeping;
            this.previous = kept;
            this.next = keeping ? new HashMap<>() : null;
        }

        /** Writes the family's lines to {@code out}, the runs unchanged since the last scrape from its bytes. */
        void write(HubCollector.Rows rows, OutputStream out) throws IOException {
            int n = rows.rows().length;
            String name = rows.family().name();
            Family before = previous.get(name);
            int per = Math.max(1, CHUNK_LINES / rows.linesPerSeries());
            Chunk[] now = new Chunk[(n + per - 1) / per];
            int format = openMetrics ? 1 : 0;
            byte[][] headers = before == null ? new byte[2][] : before.headers().clone();
            for (int c = 0; c < now.length; c++) {
                int from = c * per;
                int to = Math.min(n, from + per);
                Chunk old = before != null && c < before.chunks().length ? before.chunks()[c] : null;
                if (old != null && old.matches(rows, from, to) && (c > 0 || headers[format] != null)) {
                    now[c] = old;
                } else {
                    byte[] rendered = render(rows, from, to);
                    int body = headerLength(rendered);
                    if (headers[format] == null) {
                        headers[format] = java.util.Arrays.copyOf(rendered, body);
                    }
                    int end = rendered.length - (openMetrics ? EOF.length : 0);
                    Labels[] labels = new Labels[to - from];
                    long[] key = new long[(to - from) * rows.keyWidth()];
                    for (int i = from; i < to; i++) {
                        labels[i - from] = rows.rows()[i].labels();
                        for (int j = 0; j < rows.keyWidth(); j++) {
                            key[(i - from) * rows.keyWidth() + j] = rows.key(i, j);
                        }
                    }
                    now[c] = new Chunk(labels, key, java.util.Arrays.copyOfRange(rendered, body, end));
                }
                if (c == 0) {
                    out.write(headers[format]);
                }
                for (int at = 0; at < now[c].bytes().length; at += MAX_WRITE) {
                    out.write(now[c].bytes(), at, Math.min(MAX_WRITE, now[c].bytes().length - at));
                }
            }
            if (keeping && now.length > 0) {
                next.put(name, new Family(headers, now));
            }
        }

        @Override
        public void close() {
            if (keeping) {
                kept = next;
                lock.unlock();
            }
        }

        private byte[] render(HubCollector.Rows rows, int from, int to) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
            writer.write(out, new MetricSnapshots(rows.snapshot(from, to)));
            return out.toByteArray();
        }
    }

    /** Where the leading comment lines (HELP, TYPE, UNIT) of a rendering end. */
    private static int headerLength(byte[] b) {
        int at = 0;
        while (at < b.length && b[at] == '#') {
            while (b[at++] != '\n') {
                // to the end of the line
            }
        }
        return at;
    }

    private static final byte[] EOF = "# EOF\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
}
