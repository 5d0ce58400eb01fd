package io.tailwatch.metrics;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One metric registry's exposition (one format) as it rendered once, kept as its constant bytes (the
 * HELP and TYPE lines, each sample's name and labels up to the value) and a slot per sample that reads
 * the value from its meter. A later scrape writes the constant bytes and the values through one reused
 * buffer: no snapshot objects, label lists, name checks or formatted strings per series, only a
 * histogram snapshot per histogram series and the text of a value that changed since the last scrape.
 *
 * <p>A plan is made from Micrometer's own rendering of the registry and kept only if rendering it
 * straight away gives the same bytes; its owner drops it when a meter is added to or removed from the
 * registry. So what it writes is Micrometer's exposition, byte for byte, with the values of the moment.
 */
final class ExpositionPlan {
    private enum Kind { GAUGE, INFO, COUNTER, BUCKET, INF_BUCKET, COUNT, SUM, MAX }

    /** A histogram series: its snapshot is taken once per rendering, for all its lines. */
    private static final class Histogram {
        final Meter meter;
        HistogramSnapshot snapshot;
        long stamp = -1;

        Histogram(Meter meter) {
            this.meter = meter;
        }

        HistogramSnapshot snapshot(long render) {
            if (stamp != render) {
                snapshot = meter instanceof Timer t ? t.takeSnapshot() : ((DistributionSummary) meter).takeSnapshot();
                stamp = render;
            }
            return snapshot;
        }

        boolean timer() {
            return meter instanceof Timer;
        }
    }

    private static final class Slot {
        final byte[][] prefix;
        final Kind kind;
        final Meter meter;
        final Histogram histogram;
        final int bucket;
        /** The value last written (raw bits of a double, or a count) and its text. */
        long last;
        boolean written;
        byte[] text;

        Slot(byte[][] prefix, Kind kind, Meter meter, Histogram histogram, int bucket) {
            this.prefix = prefix;
            this.kind = kind;
            this.meter = meter;
            this.histogram = histogram;
            this.bucket = bucket;
        }
    }

    private static final byte[] ONE = {'1'};
    private final Slot[] slots;
    private final byte[] tail;
    /** The caller's buffer while {@link #write} runs (plans are many; a scrape needs one buffer). */
    private byte[] buffer;
    private int used;
    private long renders;

    private ExpositionPlan(Slot[] slots, byte[] tail) {
        this.slots = slots;
        this.tail = tail;
    }

    /**
     * The plan of the first {@code length} bytes of {@code rendered} (Micrometer's exposition of a registry
     * holding {@code meters}, without an OpenMetrics {@code # EOF}), or null when a line does not map onto
     * one of the meters or the plan does not reproduce those bytes exactly. The constant bytes are kept in
     * shared pieces: a family's name once, a series' labels once for all its lines, each bucket bound once.
     */
    static ExpositionPlan of(byte[] rendered, int length, List<Meter> meters) {
        Map<String, Meter> byLabels = new HashMap<>();
        Map<Meter, Histogram> histograms = new HashMap<>();
        for (Meter m : meters) {
            if (!(m instanceof Gauge || m instanceof FunctionCounter || m instanceof Timer || m instanceof DistributionSummary)) {
                return null;
            }
            if (byLabels.put(labels(m.getId().getTags()), m) != null) {
                return null;
            }
        }
        Map<String, byte[]> pieces = new HashMap<>();
        java.util.ArrayList<Slot> slots = new java.util.ArrayList<>();
        Map<Meter, Integer> buckets = new HashMap<>();
        int comments = -1;
        int at = 0;
        while (at < length) {
            int end = indexOf(rendered, (byte) '\n', at, length);
            if (end < 0) {
                return null;
            }
            int lineStart = at;
            at = end + 1;
            if (rendered[lineStart] == '#') {
                comments = comments < 0 ? lineStart : comments;
                continue;
            }
            int space = lastIndexOf(rendered, (byte) ' ', lineStart, end);
            int brace = indexOf(rendered, (byte) '{', lineStart, space);
            if (space <= lineStart) {
                return null;
            }
            int nameEnd = brace < 0 ? space : brace;
            String name = new String(rendered, lineStart, nameEnd - lineStart, StandardCharsets.UTF_8);
            int close = brace < 0 ? -1 : lastIndexOf(rendered, (byte) '}', brace, space);
            String labels = brace < 0 ? "" : new String(rendered, brace, close + 1 - brace, StandardCharsets.UTF_8);
            Meter m = byLabels.get(labels);
            Kind kind;
            int bucket = -1;
            int split = -1; // where the labels piece ends and the bound's begins (bucket lines)
            if (m instanceof Gauge && name.endsWith("_info")) {
                kind = Kind.INFO; // an info family: the writers write 1 whatever the gauge holds
            } else if (m instanceof Gauge) {
                kind = Kind.GAUGE;
            } else if (m instanceof FunctionCounter) {
                kind = Kind.COUNTER;
            } else if (m != null && name.endsWith("_count")) {
                kind = Kind.COUNT;
            } else if (m != null && name.endsWith("_sum")) {
                kind = Kind.SUM;
            } else if (m != null && name.endsWith("_max")) {
                kind = Kind.MAX;
            } else if (m == null && name.endsWith("_bucket")) {
                int le = labels.lastIndexOf("le=\"");
                if (le < 1) {
                    return null;
                }
                String base = labels.substring(0, le);
                base = base.equals("{") ? "" : base.substring(0, base.length() - 1) + "}";
                m = byLabels.get(base);
                if (!(m instanceof Timer || m instanceof DistributionSummary)) {
                    return null;
                }
                split = brace + labels.substring(0, le).getBytes(StandardCharsets.UTF_8).length;
                if (labels.endsWith("le=\"+Inf\"}")) {
                    kind = Kind.INF_BUCKET;
                } else {
                    kind = Kind.BUCKET;
                    bucket = buckets.merge(m, 1, Integer::sum) - 1;
                }
            } else {
                return null;
            }
            java.util.ArrayList<byte[]> parts = new java.util.ArrayList<>(4);
            if (comments >= 0) {
                parts.add(java.util.Arrays.copyOfRange(rendered, comments, lineStart));
                comments = -1;
            }
            parts.add(piece(pieces, rendered, lineStart, nameEnd));
            if (split > 0) {
                parts.add(piece(pieces, rendered, nameEnd, split));
                parts.add(piece(pieces, rendered, split, space + 1));
            } else {
                parts.add(piece(pieces, rendered, nameEnd, space + 1));
            }
            Histogram h = kind == Kind.GAUGE || kind == Kind.INFO || kind == Kind.COUNTER ? null : histograms.computeIfAbsent(m, Histogram::new);
            slots.add(new Slot(parts.toArray(new byte[0][]), kind, m, h, bucket));
        }
        ExpositionPlan plan = new ExpositionPlan(slots.toArray(new Slot[0]),
                comments < 0 ? new byte[0] : java.util.Arrays.copyOfRange(rendered, comments, length));
        Same check = new Same(rendered, length);
        try {
            plan.write(check, new byte[8192]);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return check.same() ? plan : null;
    }

    /** The bytes {@code from..to} of {@code b}, one array for every equal piece of the plan. */
    private static byte[] piece(Map<String, byte[]> pieces, byte[] b, int from, int to) {
        return pieces.computeIfAbsent(new String(b, from, to - from, StandardCharsets.ISO_8859_1),
                k -> java.util.Arrays.copyOfRange(b, from, to));
    }

    private static int indexOf(byte[] b, byte c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static int lastIndexOf(byte[] b, byte c, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    /** Compares what is written with the expected bytes, keeping nothing. */
    private static final class Same extends OutputStream {
        private final byte[] expected;
        private final int length;
        private int at;
        private boolean same = true;

        Same(byte[] expected, int length) {
            this.expected = expected;
            this.length = length;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (!same || at + len > length || !java.util.Arrays.equals(b, off, off + len, expected, at, at + len)) {
                same = false;
                return;
            }
            at += len;
        }

        boolean same() {
            return same && at == length;
        }
    }

    /** Micrometer's label text for these tags (sorted by key, values escaped as the writers escape them). */
    private static String labels(List<Tag> tags) {
        if (tags.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("{");
        for (Tag t : tags) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append(t.getKey()).append("=\"");
            String v = t.getValue();
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                switch (c) {
                    case '\\' -> b.append("\\\\");
                    case '"' -> b.append("\\\"");
                    case '\n' -> b.append("\\n");
                    default -> b.append(c);
                }
            }
            b.append('"');
        }
        return b.append('}').toString();
    }

    /**
     * Writes the exposition with the meters' current values through {@code buffer} (not thread-safe: its
     * owner holds a lock).
     */
    void write(OutputStream out, byte[] buffer) throws IOException {
        long render = ++renders;
        this.buffer = buffer;
        used = 0;
        try {
            writeSlots(out, render);
        } finally {
            this.buffer = null;
        }
    }

    private void writeSlots(OutputStream out, long render) throws IOException {
        for (Slot s : slots) {
            for (byte[] part : s.prefix) {
                put(out, part);
            }
            switch (s.kind) {
                case GAUGE -> putDouble(out, s, ((Gauge) s.meter).value());
                case INFO -> put(out, ONE);
                case COUNTER -> putDouble(out, s, ((FunctionCounter) s.meter).count());
                case BUCKET -> putLong(out, s, (long) s.histogram.snapshot(render).histogramCounts()[s.bucket].count());
                case INF_BUCKET, COUNT -> putLong(out, s, s.histogram.snapshot(render).count());
                case SUM -> {
                    HistogramSnapshot h = s.histogram.snapshot(render);
                    putDouble(out, s, s.histogram.timer() ? h.total(TimeUnit.SECONDS) : h.total());
                }
                case MAX -> {
                    HistogramSnapshot h = s.histogram.snapshot(render);
                    putDouble(out, s, s.histogram.timer() ? h.max(TimeUnit.SECONDS) : h.max());
                }
            }
            put(out, '\n');
        }
        put(out, tail);
        if (used > 0) {
            out.write(buffer, 0, used);
            used = 0;
        }
    }

    /** A double as the exposition writers write it: +Inf, -Inf, else {@link Double#toString}. */
    private void putDouble(OutputStream out, Slot s, double v) throws IOException {
        long bits = Double.doubleToRawLongBits(v);
        if (!s.written || s.last != bits) {
            s.text = (v == Double.POSITIVE_INFINITY ? "+Inf" : v == Double.NEGATIVE_INFINITY ? "-Inf" : Double.toString(v))
                    .getBytes(StandardCharsets.US_ASCII);
            s.last = bits;
            s.written = true;
        }
        put(out, s.text);
    }

    private void putLong(OutputStream out, Slot s, long v) throws IOException {
        if (!s.written || s.last != v) {
            s.text = Long.toString(v).getBytes(StandardCharsets.US_ASCII);
            s.last = v;
            s.written = true;
        }
        put(out, s.text);
    }

    private void put(OutputStream out, byte[] b) throws IOException {
        if (used + b.length > buffer.length) {
            out.write(buffer, 0, used);
            used = 0;
            if (b.length > buffer.length) {
                out.write(b);
                return;
            }
        }
        System.arraycopy(b, 0, buffer, used, b.length);
        used += b.length;
    }

    private void put(OutputStream out, char c) throws IOException {
        if (used == buffer.length) {
            out.write(buffer, 0, used);
            used = 0;
        }
        buffer[used++] = (byte) c;
    }
}
