package io.tailwatch.core.rules;

import io.tailwatch.core.units.Units;
import java.util.Locale;

/**
 * What a rule's value and threshold measure: how the config spells a threshold, how the agent
 * prints a value, and the Prometheus template that prints it in an annotation.
 */
public enum ValueKind {
    /** Bytes; config as 1GiB, 512MiB. */
    BYTES("a size (e.g. 1GiB)"),
    /** Ratio 0..1; config as 0.8 or 80%. */
    RATIO("a ratio (e.g. 0.8 or 80%)"),
    /** A multiple of another figure; config as 3 or 3x. */
    FACTOR("a factor (e.g. 3 or 3x)"),
    /** Seconds; config as 500ms, 2s. */
    SECONDS("a duration (e.g. 500ms)"),
    /** A discrete level (memory pressure 0..2, thermal 0..4). */
    LEVEL("a level (whole number)"),
    /** A count of tokens. */
    TOKENS("a number of tokens"),
    /** A count of events (failed exports, lost notifications). */
    COUNT("a whole number"),
    /** A plain number (a rule whose value can be one of several figures). */
    NUMBER("a number");

    private final String expected;

    ValueKind(String expected) {
        this.expected = expected;
    }

    public String expected() {
        return expected;
    }

    /** Parses a threshold as written in the config; throws IllegalArgumentException naming the form. */
    public double parse(String text) {
        String t = text.strip();
        try {
            return switch (this) {
                case BYTES -> Units.bytes(t);
                case RATIO -> t.endsWith("%") ? Double.parseDouble(t.substring(0, t.length() - 1).strip()) / 100.0
                        : Double.parseDouble(t);
                case FACTOR -> Double.parseDouble(t.endsWith("x") ? t.substring(0, t.length() - 1).strip() : t);
                case SECONDS -> Units.duration(t).toNanos() / 1e9;
                case LEVEL -> Integer.parseInt(t);
                case TOKENS, COUNT -> Long.parseLong(t);
                case NUMBER -> Double.parseDouble(t);
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("expected " + expected + ", got '" + text + "'");
        }
    }

    /** The value as the agent prints it (logs, API descriptions, CLI). */
    public String format(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        return switch (this) {
            case BYTES -> Units.formatBytes(v);
            case RATIO -> String.format(Locale.ROOT, "%.1f%%", v * 100);
            case FACTOR -> String.format(Locale.ROOT, "%.2fx", v);
            case SECONDS -> v < 1 ? String.format(Locale.ROOT, "%.0f ms", v * 1000) : String.format(Locale.ROOT, "%.2f s", v);
            case LEVEL, TOKENS, COUNT -> String.format(Locale.ROOT, "%.0f", v);
            case NUMBER -> String.format(Locale.ROOT, "%.2f", v);
        };
    }

    /** Go template printing {@code $value} in a Prometheus or Grafana annotation. */
    public String template(String valueRef) {
        return switch (this) {
            case BYTES -> "{{ " + valueRef + " | humanize1024 }}B";
            case RATIO -> "{{ " + valueRef + " | humanizePercentage }}";
            case FACTOR -> "{{ printf \"%.2f\" " + valueRef + " }}x";
            case SECONDS -> "{{ " + valueRef + " | humanizeDuration }}";
            case LEVEL, TOKENS, COUNT -> "{{ printf \"%.0f\" " + valueRef + " }}";
            case NUMBER -> "{{ printf \"%.2f\" " + valueRef + " }}";
        };
    }
}
