package io.tailwatch.cli;

import io.tailwatch.core.host.platform.NativeTerminal;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Progress of a long command (bench, ladder) on stderr: a live bar when stderr is a terminal, plain
 * timestamped lines when it is not (a log file, CI, a pipe), nothing with --quiet. A task is one
 * bounded piece of work ("level 4", "engine ollama") of a known number of requests; {@link #update}
 * reports how many are done plus a short figure string (running p95, errors). Thread-safe.
 */
public abstract class Progress implements AutoCloseable {
    /** Plain lines are printed at most this often, plus one when a task completes. */
    static final Duration LINE_GAP = Duration.ofSeconds(5);

    /** Starts a task of {@code total} requests (ends the previous one). */
    public abstract void begin(String task, long total);

    /** {@code done} of the current task's requests have finished; {@code figures} is shown beside the count. */
    public abstract void update(long done, String figures);

    /** A line of its own (a step summary, a note): printed below the bar, never through it. */
    public abstract void line(String text);

    /** Ends the current task, leaving its last state on screen. */
    @Override
    public abstract void close();

    /**
     * Progress on a command's error writer {@code err} (picocli's, which is this process's stderr unless a
     * caller replaced it): quiet, a bar when stderr is a terminal, lines otherwise.
     */
    public static Progress forStderr(boolean quiet, PrintWriter err) {
        if (quiet) {
            return NONE;
        }
        PrintStream stream = stream(err);
        return stderrIsTerminal() ? new Bar(stream, 0) : new Lines(stream, Clock.systemUTC(), LINE_GAP);
    }

    /**
     * A PrintStream onto {@code w} (the progress bar library draws on a PrintStream): what is printed reaches
     * {@code w} at once (a bar redraw has no line end), decoded as UTF-8; a character's bytes split over two
     * writes wait for the rest.
     */
    static PrintStream stream(PrintWriter w) {
        OutputStream bytes = new OutputStream() {
            private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

            @Override
            public synchronized void write(int b) {
                pending.write(b);
                handOn();
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) {
                pending.write(b, off, len);
                handOn();
            }

            @Override
            public synchronized void flush() {
                handOn();
            }

            /** Passes on what is pending when it ends on a whole character. */
            private void handOn() {
                byte[] b = pending.toByteArray();
                if (b.length == 0 || !endsOnWholeCharacter(b)) {
                    return;
                }
                pending.reset();
                w.write(new String(b, StandardCharsets.UTF_8));
                w.flush();
            }
        };
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }

    /** Whether UTF-8 bytes end after a complete character (not inside a multi-byte sequence). */
    static boolean endsOnWholeCharacter(byte[] b) {
        int i = b.length - 1;
        int continuation = 0;
        while (i >= 0 && (b[i] & 0xC0) == 0x80 && continuation < 3) {
            continuation++;
            i--;
        }
        if (i < 0) {
            return false;
        }
        int lead = b[i] & 0xFF;
        int needed = lead < 0x80 ? 0 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
        return continuation >= needed;
    }

    /** Whether file descriptor 2 is a terminal; false when that cannot be asked. */
    static boolean stderrIsTerminal() {
        return NativeTerminal.isTerminal(2);
    }

    /** Says nothing. */
    public static final Progress NONE = new Progress() {
        @Override
        public void begin(String task, long total) {
        }

        @Override
        public void update(long done, String figures) {
        }

        @Override
        public void line(String text) {
        }

        @Override
        public void close() {
        }
    };

    /** "0:01:05": hours, minutes, seconds. */
    static String clock(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
    }

    /** The live bar (me.tongfei:progressbar): task, percentage, n/N, elapsed / ETA, figures. */
    static final class Bar extends Progress {
        private final PrintStream out;
        private final int width;
        private ProgressBar bar;
        private Consumer consumer;

        /** {@code width} 0: the terminal's width. */
        Bar(PrintStream out, int width) {
            this.out = out;
            this.width = width;
        }

        @Override
        public synchronized void begin(String task, long total) {
            close();
            consumer = new Consumer(width > 0 ? new ConsoleProgressBarConsumer(out, width) : new ConsoleProgressBarConsumer(out));
            bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                    .setUpdateIntervalMillis(500).continuousUpdate().setConsumer(consumer).build();
        }

        @Override
        public synchronized void update(long done, String figures) {
            if (bar != null) {
                bar.stepTo(done);
                bar.setExtraMessage(figures == null ? "" : figures);
            }
        }

        @Override
        public synchronized void line(String text) {
            close();
            out.println(text);
            out.flush();
        }

        @Override
        public synchronized void close() {
            if (bar != null) {
                bar.close();
                bar = null;
                // A bar closed before its first scheduled redraw leaves its consumer open: end its line here.
                if (!consumer.closed) {
                    consumer.close();
                }
            }
        }

        /** The library's console consumer, remembering whether the bar has closed it (which ends the line). */
        private static final class Consumer implements ProgressBarConsumer {
            private final ConsoleProgressBarConsumer inner;
            private volatile boolean closed;

            Consumer(ConsoleProgressBarConsumer inner) {
                this.inner = inner;
            }

            @Override
            public int getMaxRenderedLength() {
                return inner.getMaxRenderedLength();
            }

            @Override
            public void accept(String rendered) {
                inner.accept(rendered);
            }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    inner.close();
                }
            }
        }
    }

    /** One line per update at most every {@code gap} (and when a task completes), for logs and pipes. */
    static final class Lines extends Progress {
        private final PrintStream out;
        private final Clock clock;
        private final Duration gap;
        private String task;
        private long total;
        private Instant started;
        private Instant lastLine;

        Lines(PrintStream out, Clock clock, Duration gap) {
            this.out = out;
            this.clock = clock;
            this.gap = gap;
        }

        @Override
        public synchronized void begin(String task, long total) {
            this.task = task;
            this.total = total;
            this.started = clock.instant();
            this.lastLine = null;
        }

        @Override
        public synchronized void update(long done, String figures) {
            if (task == null) {
                return;
            }
            Instant now = clock.instant();
            boolean last = done >= total;
            if (!last && lastLine != null && Duration.between(lastLine, now).compareTo(gap) < 0) {
                return;
            }
            if (done <= 0) {
                out.printf(Locale.ROOT, "%s: started, %d requests%s%n", task, total,
                        figures == null || figures.isEmpty() ? "" : " (" + figures + ")");
                out.flush();
                return;
            }
            lastLine = now;
            Duration elapsed = Duration.between(started, now);
            String eta = last ? "0:00:00"
                    : clock(elapsed.multipliedBy(total - done).dividedBy(done));
            out.printf(Locale.ROOT, "%s: request %d of %d, elapsed %s, ETA %s%s%n", task, done, total, clock(elapsed),
                    eta, figures == null || figures.isEmpty() ? "" : ", " + figures);
            out.flush();
        }

        @Override
        public synchronized void line(String text) {
            out.println(text);
            out.flush();
        }

        @Override
        public synchronized void close() {
            task = null;
        }
    }
}
