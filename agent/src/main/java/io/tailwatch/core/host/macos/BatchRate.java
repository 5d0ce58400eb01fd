package io.tailwatch.core.host.macos;

/**
 * The rate of one rail whose energy counter may be published in batches (about every 2 s on an M5 Max and
 * an M1 Ultra, far less often on some Macs). A still interval on a rail that cannot be idle is "no batch
 * yet", so its seconds are carried until the counter moves; the energy of a batch is then divided by all the
 * seconds since the previous batch (its publication interval), not by the last sample interval, which would
 * read as a spike. Between batches the rail keeps the rate of its last one. The first batch after a frozen
 * stretch is a catch-up of unknown length and gives no rate (its energy still counts).
 */
final class BatchRate {
    private double pending;
    private double lastWatts = Double.NaN;
    private boolean discardNext;

    /** A delta in which the counter moved by {@code joules} over {@code seconds}: the rate, or NaN when none can be given. */
    double moved(double joules, double seconds) {
        pending += seconds;
        double interval = pending;
        pending = 0;
        if (discardNext) {
            discardNext = false;
            lastWatts = Double.NaN;
            return Double.NaN;
        }
        lastWatts = interval > 0 ? joules / interval : Double.NaN;
        return lastWatts;
    }

    /** A delta in which the counter did not move: the rate of the last batch (NaN before the first). */
    double still(double seconds) {
        pending += seconds;
        return lastWatts;
    }

    /** The counter was found frozen: no rate until a batch after the next one. */
    void frozen() {
        discardNext = true;
        lastWatts = Double.NaN;
        pending = 0;
    }
}
