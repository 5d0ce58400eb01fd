package io.tailwatch.core.logging;

import io.tailwatch.core.text.SafeText;
import java.io.PrintStream;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place every line of the daemon's log passes (its stderr, which launchd writes to a file), ours
 * and the libraries' alike (Jetty and Javalin log through SLF4J; the OpenTelemetry SDK's
 * java.util.logging is routed there too). It keeps the log honest and bounded:
 * <ul>
 *   <li>control characters inside a line are escaped ({@code \n}, {@code \r}, {@code \x1b}), so a value
 *       from outside (an engine version with a line break) cannot forge a log line;</li>
 *   <li>a line is cut at {@link #MAX_LINE_CHARS};</li>
 *   <li>lines of the same shape (same logger and text once digits are set aside) are written at most
 *       {@code burst} times per window; the rest are counted and summarised in one line when the window
 *       ends, so 2,000 identical warnings become a handful;</li>
 *   <li>warnings and errors of one source (level and logger) are written at most {@link #SOURCE_BURST}
 *       times per window whatever their text, so a library that echoes attacker text (Jetty's parser
 *       warnings) cannot make every line a new shape and pass; summarised the same way;</li>
 *   <li>a stack trace is cut after {@link #MAX_TRACE_LINES} lines, and dropped with its line when that
 *       line is suppressed.</li>
 * </ul>
 * slf4j-simple looks {@code System.err} up for every line, so installing this as System.err is enough.
 */
public final class LogGuard extends PrintStream {
    public static final int MAX_LINE_CHARS = 4_096;
    public static final int MAX_TRACE_LINES = 12;
    static final int MAX_SHAPES = 512;
    /** Warnings and errors of one logger written per window, whatever their shapes. */
    public static final int SOURCE_BURST = 30;
    /** The level and logger of an event line: {@code ... [WARN] HttpParser - text}. */
    private static final Pattern SOURCE = Pattern.compile("^\\S+ \\[(WARN|ERROR)] (\\S{1,200}) - ");
    /** A log event's first line as slf4j-simple writes it (see simplelogger.properties). */
    private static final Pattern EVENT = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT\\S+ \\[[A-Z]+] .*", Pattern.DOTALL);
    private static final Pattern DIGITS = Pattern.compile("\\d+");

    private final PrintStream out;
    private final LongSupplier nanos;
    private final int burst;
    private final long windowNanos;
    private final Map<String, Shape> shapes = new LinkedHashMap<>(64, 0.75f, true);
    private final Map<String, Shape> sources = new LinkedHashMap<>(16, 0.75f, true);
    private boolean dropping;
    private int traceLines;
    private long suppressedTotal;

    private static final class Shape {
        long windowStart;
        int written;
        long suppressed;
    }

    public LogGuard(PrintStream out, int burst, long window, TimeUnit unit, LongSupplier nanos) {
        super(out, true);
        this.out = out;
        this.burst = burst;
        this.windowNanos = unit.toNanos(window);
        this.nanos = nanos;
    }

    /** Installs the guard as System.err (5 lines of a shape per minute) and routes java.util.logging to SLF4J. */
    public static LogGuard install() {
        return install(System.err);
    }

    /** The same, writing to {@code logFile} capped at {@code maxBytes} (see {@link CappedLogFile}). */
    public static LogGuard install(java.nio.file.Path logFile, long maxBytes) throws java.io.IOException {
        return install(new PrintStream(new CappedLogFile(logFile, maxBytes), true, java.nio.charset.StandardCharsets.UTF_8));
    }

    private static LogGuard install(PrintStream target) {
        LogGuard g = new LogGuard(target, 5, 1, TimeUnit.MINUTES, System::nanoTime);
        System.setErr(g);
        routeJulToSlf4j();
        return g;
    }

    /** Escapes control characters (except tab; {@link SafeText#unsafe}) and cuts the text at {@code max} characters. */
    public static String escape(String s, int max) {
        return SafeText.escape(s, max);
    }

    /** A value from outside (engine, network, file) made safe for one log line: escaped and at most 200 chars. */
    public static String value(Object v) {
        return escape(v == null ? null : v.toString(), 200);
    }

    @Override
    public void println(String x) {
        line(x);
    }

    @Override
    public void println(Object x) {
        line(String.valueOf(x));
    }

    /** Text written without a line end (rare: CLI output) passes as it is. */
    @Override
    public void print(String s) {
        synchronized (this) {
            out.print(s);
        }
    }

    /** Summarises what is still being held back (at shutdown). */
    public synchronized void flushSuppressed() {
        for (Map.Entry<String, Shape> e : shapes.entrySet()) {
            summarise(e.getKey(), e.getValue());
        }
        out.flush();
    }

    public synchronized long suppressedTotal() {
        return suppressedTotal;
    }

    private synchronized void line(String raw) {
        String s = raw == null ? "null" : raw;
        if (!EVENT.matcher(s).matches()) {
            // A continuation: a stack trace line, or text printed outside the logger.
            if (dropping) {
                return;
            }
            if (++traceLines > MAX_TRACE_LINES) {
                if (traceLines == MAX_TRACE_LINES + 1) {
                    out.println("\t... (stack trace cut)");
                }
                return;
            }
            out.println(escape(s, MAX_LINE_CHARS));
            return;
        }
        traceLines = 0;
        String key = shapeOf(s);
        long now = nanos.getAsLong();
        Shape shape = window(shapes, key, now, this::summarise);
        if (shape.written >= burst) {
            shape.suppressed++;
            suppressedTotal++;
            dropping = true;
            return;
        }
        java.util.regex.Matcher src = SOURCE.matcher(s);
        if (src.find()) {
            String name = "[" + src.group(1) + "] " + src.group(2);
            Shape source = window(sources, name, now, this::summariseSource);
            if (source.written >= SOURCE_BURST) {
                source.suppressed++;
                suppressedTotal++;
                dropping = true;
                return;
            }
            source.written++;
        }
        shape.written++;
        dropping = false;
        out.println(escape(s, MAX_LINE_CHARS));
    }

    /** The window of {@code key} in {@code map} (a new one, or the next once this one ended). */
    private Shape window(Map<String, Shape> map, String key, long now,
                         java.util.function.BiConsumer<String, Shape> summary) {
        Shape w = map.get(key);
        if (w == null) {
            if (map.size() >= MAX_SHAPES) {
                Iterator<Map.Entry<String, Shape>> it = map.entrySet().iterator();
                Map.Entry<String, Shape> eldest = it.next();
                summary.accept(eldest.getKey(), eldest.getValue());
                it.remove();
            }
            w = new Shape();
            w.windowStart = now;
            map.put(key, w);
        } else if (now - w.windowStart >= windowNanos) {
            summary.accept(key, w);
            w.windowStart = now;
            w.written = 0;
        }
        return w;
    }

    private void summariseSource(String key, Shape source) {
        if (source.suppressed > 0) {
            out.println(escape("[log] " + source.suppressed + " more line(s) from " + key + " suppressed in "
                    + TimeUnit.NANOSECONDS.toSeconds(windowNanos) + " s (more than " + SOURCE_BURST + " from it)",
                    MAX_LINE_CHARS));
            source.suppressed = 0;
        }
    }

    private void summarise(String key, Shape shape) {
        if (shape.suppressed > 0) {
            out.println(escape("[log] " + shape.suppressed + " more line(s) like \"" + key + "\" suppressed in "
                    + TimeUnit.NANOSECONDS.toSeconds(windowNanos) + " s", MAX_LINE_CHARS));
            shape.suppressed = 0;
        }
    }

    /** The line without its timestamp, digits folded, at most 160 chars: lines that differ only in numbers share it. */
    static String shapeOf(String line) {
        int sp = line.indexOf(' ');
        String rest = sp < 0 ? line : line.substring(sp + 1);
        String folded = DIGITS.matcher(rest.length() > 160 ? rest.substring(0, 160) : rest).replaceAll("#");
        return escape(folded, 160);
    }

    /** java.util.logging (the OpenTelemetry SDK's logger) through SLF4J, so it meets the same guard. */
    static void routeJulToSlf4j() {
        java.util.logging.Logger root = LogManager.getLogManager().getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        root.addHandler(new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r == null || !isLoggable(r)) {
                    return;
                }
                Logger log = LoggerFactory.getLogger(r.getLoggerName() == null ? "jul" : r.getLoggerName());
                String msg = new java.util.logging.SimpleFormatter().formatMessage(r);
                Throwable t = r.getThrown();
                // The cause in one line; the library's stack trace adds nothing an operator can act on.
                String text = t == null ? msg : msg + ": " + t;
                int level = r.getLevel().intValue();
                if (level >= Level.SEVERE.intValue()) {
                    log.error(text);
                } else if (level >= Level.WARNING.intValue()) {
                    log.warn(text);
                } else if (level >= Level.INFO.intValue()) {
                    log.info(text);
                } else {
                    log.debug(text);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
    }
}
