package io.tailwatch.core.units;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Human units: durations such as 250ms, 5s, 2m30s, 1h; sizes such as 512MiB, 1GiB, 2GB, 4096. */
public final class Units {
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([KMGTP]i?B|B)?", Pattern.CASE_INSENSITIVE);

    private Units() {
    }

    /** Parses a duration; throws IllegalArgumentException with the accepted forms. */
    public static Duration duration(String text) {
        String s = text.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty duration");
        }
        Matcher m = DURATION_PART.matcher(s);
        int pos = 0;
        double millis = 0;
        while (pos < s.length()) {
            if (!m.find(pos) || m.start() != pos) {
                throw new IllegalArgumentException("bad duration '" + text + "' (use e.g. 250ms, 5s, 2m30s, 1h)");
            }
            double v = Double.parseDouble(m.group(1));
            millis += switch (m.group(2)) {
                case "ms" -> v;
                case "s" -> v * 1_000;
                case "m" -> v * 60_000;
                case "h" -> v * 3_600_000;
                default -> v * 86_400_000;
            };
            pos = m.end();
        }
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }

    /** Parses a size in bytes; binary (KiB, MiB, GiB, TiB) and decimal (KB, MB, GB, TB) suffixes. */
    public static long bytes(String text) {
        Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("bad size '" + text + "' (use e.g. 512MiB, 1GiB, 2GB or a number of bytes)");
        }
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT);
        double mult = switch (unit) {
            case "B" -> 1;
            case "KIB" -> 1L << 10;
            case "MIB" -> 1L << 20;
            case "GIB" -> 1L << 30;
            case "TIB" -> 1L << 40;
            case "PIB" -> 1L << 50;
            case "KB" -> 1e3;
            case "MB" -> 1e6;
            case "GB" -> 1e9;
            case "TB" -> 1e12;
            default -> 1e15;
        };
        return Math.round(v * mult);
    }

    /** Formats a duration the way the config accepts it. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1_000 == 0) {
            return ms / 1_000 + "s";
        }
        return ms + "ms";
    }

    /** Formats a byte count with a binary suffix, e.g. 1.50 GiB. */
    public static String formatBytes(double bytes) {
        String[] u = {"B", "KiB", "MiB", "GiB", "TiB"};
        int i = 0;
        double v = bytes;
        while (Math.abs(v) >= 1024 && i < u.length - 1) {
            v /= 1024;
            i++;
        }
        return i == 0 ? String.format(Locale.ROOT, "%.0f B", v) : String.format(Locale.ROOT, "%.2f %s", v, u[i]);
    }
}
