package io.tailwatch.daemon.proxy;

import io.tailwatch.core.stats.Stats;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One lane's requests over the rolling lane window: the last {@code lane_window} (5 minutes unless set) and at most
 * {@link #MAX_REQUESTS} requests, each kept as timings only (arrival, end, first token, response headers,
 * whether it met the lane's SLO). The lane rules and {@code diagnose} read its percentiles, its goodput and
 * the lane's mean requests in flight. Guarded by its own lock; a request is added once, as it ends.
 */
final class LaneWindow {
    /** The lane window unless the proxy's {@code lane_window} says otherwise: 5 minutes. */
    static final long SPAN_NANOS = io.tailwatch.core.config.ProxyConfig.DEFAULT_LANE_WINDOW.toNanos();
    /** The most requests one lane window holds (a bound of 512 x 6 longs per lane). */
    static final int MAX_REQUESTS = 512;

    /**
     * One ended request; -1 where a time is unknown (no first token, no headers). {@code met}: whether it met
     * the lane's SLO, null when the lane had none as it ended (a reload that adds an SLO judges only the
     * requests after it).
     */
    record Ended(long start, long end, long firstToken, long headers, boolean generation, Boolean met) {
    }

    /** What the window says now; NaN where it has no sample, {@code goodput} NaN for a lane without an SLO. */
    record View(int requests, double goodput, double ttftP95, double e2eP95, double queueWaitP95, double inFlight) {
    }

    private final Deque<Ended> ended = new ArrayDeque<>();
    /**
     * The end of the last request the count bound pushed out (or Long.MIN_VALUE): every request that ended
     * after it is still held, so the window's busy time is exact from there on.
     */
    private long completeFrom = Long.MIN_VALUE;

    synchronized void add(Ended e) {
        ended.addLast(e);
        while (ended.size() > MAX_REQUESTS) {
            completeFrom = Math.max(completeFrom, ended.removeFirst().end());
        }
    }

    /** True when it holds no request (the lane's last one left the span). */
    synchronized boolean isEmpty() {
        return ended.isEmpty();
    }

    /**
     * The window at {@code now}: requests that ended within the span; {@code active} are the arrival times
     * of the lane's requests still in flight, counted into the mean in flight; {@code since} when the meter
     * began. The mean in flight is over the part of the span the window knows whole: since the meter began,
     * and, when more than {@link #MAX_REQUESTS} ended in the span, since the end of the last one pushed out.
     * Goodput is over the requests judged against an SLO; NaN for a lane without one.
     */
    synchronized View view(long now, long[] active, long since, boolean withSlo) {
        return view(now, SPAN_NANOS, active, since, withSlo);
    }

    /** The window at {@code now} over the last {@code spanNanos}. */
    synchronized View view(long now, long spanNanos, long[] active, long since, boolean withSlo) {
        long span = now - spanNanos;
        while (!ended.isEmpty() && ended.peekFirst().end() < span) {
            ended.removeFirst();
        }
        long from = Math.max(span, Math.max(since, completeFrom));
        int n = ended.size();
        double[] ttft = new double[n];
        double[] e2e = new double[n];
        double[] wait = new double[n];
        int nt = 0;
        int ne = 0;
        int nw = 0;
        int good = 0;
        int judged = 0;
        double busy = 0;
        for (Ended e : ended) {
            if (e.firstToken() >= 0) {
                ttft[nt++] = (e.firstToken() - e.start()) / 1e9;
            }
            if (e.generation()) {
                e2e[ne++] = (e.end() - e.start()) / 1e9;
            }
            if (e.headers() >= 0) {
                wait[nw++] = (e.headers() - e.start()) / 1e9;
            }
            if (e.met() != null) {
                judged++;
                if (e.met()) {
                    good++;
                }
            }
            busy += Math.max(0, e.end() - Math.max(e.start(), from));
        }
        for (long start : active) {
            busy += Math.max(0, now - Math.max(start, from));
        }
        return new View(n, withSlo && judged > 0 ? (double) good / judged : Double.NaN, p95(ttft, nt), p95(e2e, ne),
                p95(wait, nw), busy / Math.max(1, now - from));
    }

    private static double p95(double[] values, int n) {
        return n == 0 ? Double.NaN : Stats.percentile(java.util.Arrays.copyOf(values, n), 95);
    }
}
