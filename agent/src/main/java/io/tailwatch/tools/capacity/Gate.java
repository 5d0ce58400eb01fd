package io.tailwatch.tools.capacity;

import io.tailwatch.core.units.Units;
import java.time.Duration;
import java.util.Locale;

/**
 * A capacity gate: can {@code daily} jobs, run one after another (concurrency 1), finish within
 * {@code budget}? Judged from the measured average single-request latency: needed = daily x avg;
 * pass when needed <= budget; headroom = budget / needed.
 */
public record Gate(int daily, Duration budget) {

    public Gate {
        if (daily <= 0) {
            throw new IllegalArgumentException("daily must be > 0, was " + daily);
        }
        if (budget == null || budget.isZero() || budget.isNegative()) {
            throw new IllegalArgumentException("budget must be a positive duration");
        }
    }

    /** Parses {@code daily=30,budget=10m}. */
    public static Gate parse(String text) {
        Integer daily = null;
        Duration budget = null;
        for (String part : text.split(",")) {
            String[] kv = part.split("=", 2);
            if (kv.length != 2) {
                throw new IllegalArgumentException("--gate: expected key=value pairs like daily=30,budget=10m, got '" + part + "'");
            }
            String key = kv[0].trim();
            String value = kv[1].trim();
            switch (key) {
                case "daily" -> {
                    try {
                        daily = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("--gate: daily must be a whole number, got '" + value + "'");
                    }
                }
                case "budget" -> {
                    try {
                        budget = Units.duration(value);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("--gate: budget: " + e.getMessage());
                    }
                }
                default -> throw new IllegalArgumentException("--gate: unknown key '" + key + "' (use daily and budget)");
            }
        }
        if (daily == null || budget == null) {
            throw new IllegalArgumentException("--gate needs both daily=N and budget=DURATION");
        }
        return new Gate(daily, budget);
    }

    public record Verdict(Gate gate, double averageSeconds, double neededSeconds, double budgetSeconds, boolean pass,
                          double headroom) {
        public String sentence() {
            return String.format(Locale.ROOT, "%d x %.2f s = %.0f s %s the %s budget: %s with %.1fx headroom",
                    gate.daily(), averageSeconds, neededSeconds, pass ? "fits" : "exceeds", Units.format(gate.budget()),
                    pass ? "pass" : "FAIL", headroom);
        }
    }

    public Verdict evaluate(double averageSeconds) {
        double needed = daily * averageSeconds;
        double budgetSeconds = budget.toNanos() / 1e9;
        return new Verdict(this, averageSeconds, needed, budgetSeconds, needed <= budgetSeconds, budgetSeconds / needed);
    }
}
