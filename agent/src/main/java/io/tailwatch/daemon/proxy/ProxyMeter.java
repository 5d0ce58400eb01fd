package io.tailwatch.daemon.proxy;

import io.tailwatch.core.probe.StreamTap;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.ProxyOutcome;
import io.tailwatch.metrics.AttrValues.TokenSource;
import io.tailwatch.metrics.AttrValues.TokenType;
import io.tailwatch.metrics.Attrs;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.ProxyMetrics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one engine's proxy measured: requests in flight, counts by lane and outcome, and per request the
 * GenAI server histograms, recorded in the hub as each request ends. It sees timings, counts and the model
 * name only; no header value or body byte is kept. Its counters are published as one producer
 * ({@code proxy/ENGINE}) at most once a second from the request path, at every host sample and before every
 * read of the hub (a scrape, an OTLP export, a rule evaluation: {@link MetricHub#refresh}), so the in-flight
 * gauge a scrape sees is the count at that scrape.
 */
public final class ProxyMeter {
    /** At most this many lanes are counted apart; lanes come from the config, so this bound holds. */
    static final int MAX_LANES = 32;
    private static final long PUBLISH_EVERY_NANOS = 1_000_000_000L;

    private final String engine;
    private volatile MetricHub hub;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    /** Saturating (a counter is held at its largest value rather than wrapping negative). */
    private final Map<String, AtomicLong> outputTokens = new ConcurrentHashMap<>();
    private final AtomicLong lastPublish = new AtomicLong(System.nanoTime() - PUBLISH_EVERY_NANOS);
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong disconnects = new AtomicLong();
    private final AtomicLong unreachable = new AtomicLong();
    private final Map<String, LongAdder> good = new ConcurrentHashMap<>();
    /** Per lane, the requests that ended while the lane had an SLO (the lifetime goodput's denominator). */
    private final Map<String, LongAdder> judged = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> byLane = new ConcurrentHashMap<>();
    /** Completed generations by the model string the engine's answer echoes (at most {@link #MAX_MODELS} strings). */
    private final Map<String, LongAdder> byModel = new ConcurrentHashMap<>();
    static final int MAX_MODELS = 32;
    private volatile Lanes lanes = Lanes.NONE;
    /** The model the engine was started with, where known (what an mlx_lm answer to an unnamed request served). */
    private volatile java.util.function.Supplier<String> servedModel = () -> null;
    private final Map<String, LaneWindow> windows = new ConcurrentHashMap<>();
    private final java.util.Set<Exchange> active = ConcurrentHashMap.newKeySet();
    private final long since = System.nanoTime();

    private final Runnable refresher = this::publish;
    private boolean refreshing;
    private volatile boolean closed;

    public ProxyMeter(String engine, MetricHub hub) {
        this.engine = engine;
        this.hub = hub;
    }

    /**
     * Where the engine's served model is read from: an answer that echoes the placeholder of a request that named
     * no model ({@link io.tailwatch.core.probe.EngineClient#UNNAMED_MODEL}) is labelled with it, or with no model.
     */
    void servedModel(java.util.function.Supplier<String> served) {
        this.servedModel = served;
    }

    /** The proxy listens: from now on the hub asks this meter to publish before each of its reads. */
    synchronized void open() {
        if (!refreshing && !closed) {
            hub.refreshBeforeReads(refresher);
            refreshing = true;
        }
    }

    /** Records into {@code next} from now on (a reload's new hub); the counters go on from where they were. */
    synchronized void rebind(MetricHub next) {
        if (next != hub) {
            if (refreshing) {
                hub.stopRefreshing(refresher);
                next.refreshBeforeReads(refresher);
            }
            this.hub = next;
        }
    }

    /**
     * The proxy stopped (or never started): the hub no longer asks this meter, and its series leave the output;
     * a request still ending publishes nothing.
     */
    synchronized void close() {
        closed = true;
        if (refreshing) {
            hub.stopRefreshing(refresher);
            refreshing = false;
        }
        hub.publish("proxy/" + engine, List.of());
    }

    void lanes(Lanes next) {
        this.lanes = next;
    }

    Lanes lanes() {
        return lanes;
    }

    public String engine() {
        return engine;
    }

    /** The model string of most completed generations so far (as the engine's answers echo it), or null before one. */
    public String mostUsedModel() {
        String best = null;
        long most = 0;
        for (Map.Entry<String, LongAdder> e : byModel.entrySet()) {
            long n = e.getValue().sum();
            if (n > most) {
                most = n;
                best = e.getKey();
            }
        }
        return best;
    }

    /** One request through the proxy, from its arrival to its end; finished exactly once. */
    public final class Exchange {
        final long t0;
        /** Null until the engine's answer names the model (a lane by model). */
        final String lane;
        final boolean generation;
        volatile long headersAt = -1;
        volatile int status;
        volatile StreamTap tap;
        volatile boolean clientGone;
        private final AtomicBoolean finished = new AtomicBoolean();

        Exchange(long t0, String lane, boolean generation) {
            this.t0 = t0;
            this.lane = lane;
            this.generation = generation;
        }

        void headers(long nanos, int statusCode, String contentType) {
            headersAt = nanos;
            status = statusCode;
            tap = StreamTap.of(contentType, t0);
        }

        /** Ends the exchange; later calls do nothing. {@code errorType}: the failure class, or null. */
        void finish(long nanos, ProxyOutcome outcome, String errorType) {
            if (finished.compareAndSet(false, true)) {
                ProxyMeter.this.finish(this, nanos, outcome, errorType);
                StreamTap t = tap;
                if (t != null) {
                    t.release(); // on the thread that fed it: an exchange cut short leaves no parser open
                }
            }
        }

        boolean finished() {
            return finished.get();
        }
    }

    /** A request arrived at {@code t0} (System.nanoTime); {@code generation}: a POST, measured as one. */
    Exchange begin(long t0, String lane, boolean generation) {
        inFlight.incrementAndGet();
        Exchange x = new Exchange(t0, lane, generation);
        active.add(x);
        return x;
    }

    private void finish(Exchange x, long end, ProxyOutcome ended, String endedError) {
        ProxyOutcome outcome = ended;
        String errorType = endedError;
        StreamTap endTap = x.tap;
        if (outcome == ProxyOutcome.OK && endTap != null
                && io.tailwatch.core.http.ProbeErrors.CUT.equals(endTap.streamError())) {
            // A stream that ends without its end marker (SSE data: [DONE], NDJSON done: true) was cut, however
            // cleanly its connection closed: mlx_lm's answers end with the close, a crash's too.
            outcome = ProxyOutcome.CUT;
            errorType = io.tailwatch.core.http.ProbeErrors.CUT;
        }
        if (outcome == ProxyOutcome.OK && x.generation && endTap != null && endTap.responseModel() != null) {
            String m = endTap.responseModel();
            if (byModel.containsKey(m) || byModel.size() < MAX_MODELS) {
                byModel.computeIfAbsent(m, k -> new LongAdder()).increment();
            }
        }
        inFlight.decrementAndGet();
        active.remove(x);
        total.incrementAndGet();
        if (outcome == ProxyOutcome.CLIENT_DISCONNECT) {
            disconnects.incrementAndGet();
        } else if (outcome == ProxyOutcome.UPSTREAM_UNREACHABLE) {
            unreachable.incrementAndGet();
        }
        Lanes l = lanes;
        String named = x.lane != null ? x.lane : l.byModel(x.tap == null ? null : x.tap.responseModel());
        String lane = byLane.size() < MAX_LANES || byLane.containsKey(named) ? named : "_OTHER";
        byLane.computeIfAbsent(lane, k -> new LongAdder()).increment();
        requests.computeIfAbsent(key(lane, outcome), k -> new LongAdder()).increment();
        if (outcome == ProxyOutcome.REJECTED) {
            // Refused before it reached the engine (no credentials): counted, never metered; no window, goodput or SLO.
            maybePublish();
            return;
        }
        if (x.headersAt >= 0) {
            hub.record(ProxyMetrics.TIME_TO_FIRST_BYTE, Attrs.of(AttrKeys.ENGINE, engine, AttrKeys.LANE, lane),
                    (x.headersAt - x.t0) / 1e9);
        }
        if (x.generation) {
            record(x, lane, end, errorType);
        }
        io.tailwatch.core.config.ProxyConfig.Slo slo = l.slo(lane);
        Boolean met = slo == null ? null : meets(x, end, outcome, slo);
        if (met != null) {
            judged.computeIfAbsent(lane, k -> new LongAdder()).increment();
            if (met) {
                good.computeIfAbsent(lane, k -> new LongAdder()).increment();
            }
        }
        StreamTap tap = x.tap;
        boolean streamed = tap != null && (tap.format() == StreamTap.Format.SSE || tap.format() == StreamTap.Format.NDJSON);
        // Time to headers is queue wait only for a stream: a whole answer's headers come with its end.
        LaneWindow.Ended e = new LaneWindow.Ended(x.t0, end, streamed && x.generation ? tap.firstContentNanos() : -1,
                streamed ? x.headersAt : -1, x.generation, met);
        // Atomic with the removal of an emptied window in windowViews: a request never lands in a dropped one.
        windows.compute(lane, (k, w) -> {
            LaneWindow into = w == null ? new LaneWindow() : w;
            into.add(e);
            return into;
        });
        maybePublish();
    }

    private void record(Exchange x, String lane, long end, String errorType) {
        StreamTap tap = x.tap;
        String model = tap == null ? null : tap.responseModel();
        if (io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL.equals(model)) {
            model = io.tailwatch.core.probe.EngineClient.answeredModel(model, servedModel.get());
        }
        Map<String, String> base = Attrs.of(AttrKeys.ENGINE, engine, AttrKeys.LANE, lane);
        if (model != null && !model.isEmpty()) {
            base.put(AttrKeys.RESPONSE_MODEL, model);
        }
        Map<String, String> withError = new java.util.TreeMap<>(base);
        if (errorType != null) {
            withError.put(AttrKeys.ERROR_TYPE, errorType);
        }
        hub.record(ProxyMetrics.REQUEST_DURATION, withError, (end - x.t0) / 1e9);
        if (tap == null) {
            return;
        }
        long first = tap.firstContentNanos();
        boolean streamed = tap.format() == StreamTap.Format.SSE || tap.format() == StreamTap.Format.NDJSON;
        if (streamed && first >= 0) {
            hub.record(ProxyMetrics.TIME_TO_FIRST_TOKEN, base, (first - x.t0) / 1e9);
        }
        if (errorType == null) {
            engineFigures(tap, lane);
        }
        StreamTap.Tokens t = tap.tokens();
        if (t.output() != null) {
            Map<String, String> a = new java.util.TreeMap<>(base);
            io.tailwatch.metrics.Attrs.put(a, TokenType.OUTPUT);
            io.tailwatch.metrics.Attrs.put(a, t.source());
            hub.record(ProxyMetrics.TOKEN_USAGE, a, t.output());
            outputTokens.computeIfAbsent(lane + "\u0000" + t.source().value(), k -> new AtomicLong())
                    .accumulateAndGet(t.output(), io.tailwatch.core.probe.InputRange::saturatingAdd);
            long last = tap.lastContentNanos();
            if (streamed && errorType == null && t.output() >= 2 && first >= 0 && last > first) {
                hub.record(ProxyMetrics.TIME_PER_OUTPUT_TOKEN, base, (last - first) / 1e9 / (t.output() - 1));
            }
        }
        if (t.input() != null) {
            Map<String, String> a = new java.util.TreeMap<>(base);
            io.tailwatch.metrics.Attrs.put(a, TokenType.INPUT);
            io.tailwatch.metrics.Attrs.put(a, t.source());
            hub.record(ProxyMetrics.TOKEN_USAGE, a, t.input());
        }
    }

    /** The engine's own time to first token and decode rate of an answer that ended well, where it reports them. */
    private void engineFigures(StreamTap tap, String lane) {
        StreamTap.EngineFigures f = tap.engineFigures();
        Double ttft = f.ttftSeconds();
        Double rate = f.decodeRate();
        if (ttft != null) {
            hub.record(ProxyMetrics.ENGINE_TIME_TO_FIRST_TOKEN, Attrs.of(AttrKeys.ENGINE, engine, AttrKeys.LANE, lane), ttft);
        }
        if (rate != null && rate > 0) {
            hub.record(ProxyMetrics.ENGINE_TIME_PER_OUTPUT_TOKEN, Attrs.of(AttrKeys.ENGINE, engine, AttrKeys.LANE, lane),
                    1 / rate);
        }
    }

    /** Ended well, within the SLO's TTFT (streams; a whole answer counts its duration) and duration. */
    static boolean meets(Exchange x, long end, ProxyOutcome outcome, io.tailwatch.core.config.ProxyConfig.Slo slo) {
        if (outcome != ProxyOutcome.OK) {
            return false;
        }
        long first = x.tap == null || x.tap.firstContentNanos() < 0 ? end : x.tap.firstContentNanos();
        if (slo.ttft() != null && first - x.t0 > slo.ttft().toNanos()) {
            return false;
        }
        return slo.e2e() == null || end - x.t0 <= slo.e2e().toNanos();
    }

    private static Double known(double v) {
        return Double.isNaN(v) ? null : v;
    }

    private static String key(String lane, ProxyOutcome outcome) {
        return lane + "\u0000" + outcome.value();
    }

    private void maybePublish() {
        long now = System.nanoTime();
        long last = lastPublish.get();
        if (now - last >= PUBLISH_EVERY_NANOS && lastPublish.compareAndSet(last, now)) {
            publish();
        }
    }

    /** Publishes the counters and the in-flight gauge (also called at every host sample). */
    public synchronized void publish() {
        if (closed) {
            return;
        }
        hub.publish("proxy/" + engine, points());
    }

    List<Point> points() {
        List<Point> out = new ArrayList<>();
        out.add(Point.of(ProxyMetrics.IN_FLIGHT, inFlight.get(), AttrKeys.ENGINE, engine));
        requests.forEach((k, v) -> {
            int cut = k.indexOf('\u0000');
            ProxyOutcome o = io.tailwatch.metrics.AttrValues.find(ProxyOutcome.class, k.substring(cut + 1));
            out.add(Point.of(ProxyMetrics.REQUESTS, v.sum(), o, AttrKeys.ENGINE, engine, AttrKeys.LANE, k.substring(0, cut)));
        });
        outputTokens.forEach((k, v) -> {
            int cut = k.indexOf('\u0000');
            TokenSource s = io.tailwatch.metrics.AttrValues.find(TokenSource.class, k.substring(cut + 1));
            out.add(Point.of(ProxyMetrics.OUTPUT_TOKENS, v.get(), s, AttrKeys.ENGINE, engine, AttrKeys.LANE, k.substring(0, cut)));
        });
        windowViews(System.nanoTime()).forEach((n, v) -> {
            out.add(Point.of(ProxyMetrics.LANE_WINDOW_REQUESTS, v.requests(), AttrKeys.ENGINE, engine, AttrKeys.LANE, n));
            out.add(Point.of(ProxyMetrics.LANE_WINDOW_IN_FLIGHT, v.inFlight(), AttrKeys.ENGINE, engine, AttrKeys.LANE, n));
            if (!Double.isNaN(v.goodput())) {
                out.add(Point.of(ProxyMetrics.LANE_WINDOW_GOODPUT, v.goodput(), AttrKeys.ENGINE, engine, AttrKeys.LANE, n));
            }
            percentile(out, ProxyMetrics.LANE_WINDOW_TTFT, v.ttftP95(), n);
            percentile(out, ProxyMetrics.LANE_WINDOW_E2E, v.e2eP95(), n);
            percentile(out, ProxyMetrics.LANE_WINDOW_QUEUE_WAIT, v.queueWaitP95(), n);
        });
        for (io.tailwatch.core.config.ProxyConfig.Lane lane : lanes.all()) {
            if (lane.slo() == null) {
                continue;
            }
            String n = lane.name();
            LongAdder g = good.get(n);
            out.add(Point.of(ProxyMetrics.LANE_GOOD, g == null ? 0 : g.sum(), AttrKeys.ENGINE, engine, AttrKeys.LANE, n));
            out.add(Point.of(ProxyMetrics.LANE_SLO_TARGET, lane.slo().target(), AttrKeys.ENGINE, engine, AttrKeys.LANE, n));
            if (lane.slo().ttft() != null) {
                out.add(Point.of(ProxyMetrics.LANE_SLO_TTFT, lane.slo().ttft().toNanos() / 1e9, AttrKeys.ENGINE, engine,
                        AttrKeys.LANE, n));
            }
            if (lane.slo().e2e() != null) {
                out.add(Point.of(ProxyMetrics.LANE_SLO_E2E, lane.slo().e2e().toNanos() / 1e9, AttrKeys.ENGINE, engine,
                        AttrKeys.LANE, n));
            }
        }
        return out;
    }

    private void percentile(List<Point> out, io.tailwatch.metrics.MetricDef def, double p95, String lane) {
        if (!Double.isNaN(p95)) {
            out.add(Point.of(def, p95, io.tailwatch.metrics.AttrValues.Percentile.P95, AttrKeys.ENGINE, engine, AttrKeys.LANE, lane));
        }
    }

    /** Each lane's window at {@code now}, lanes with requests in flight included; in the order lanes were first seen. */
    Map<String, LaneWindow.View> windowViews(long now) {
        Map<String, List<Long>> starts = new LinkedHashMap<>();
        for (Exchange x : active) {
            if (x.lane != null) {
                starts.computeIfAbsent(x.lane, k -> new ArrayList<>()).add(x.t0);
            }
        }
        java.util.Set<String> names = new java.util.TreeSet<>(windows.keySet());
        names.addAll(starts.keySet());
        Lanes l = lanes;
        Map<String, LaneWindow.View> out = new LinkedHashMap<>();
        for (String n : names) {
            if (!windows.containsKey(n) && windows.size() >= MAX_LANES) {
                continue;
            }
            long[] a = starts.getOrDefault(n, List.of()).stream().mapToLong(Long::longValue).toArray();
            LaneWindow w = windows.computeIfAbsent(n, k -> new LaneWindow());
            LaneWindow.View v = w.view(now, l.windowNanos(), a, since, l.slo(n) != null);
            if (a.length == 0 && v.requests() == 0 && !l.names(n)) {
                // A lane a reload removed, whose last request has left the window: gone from the output too.
                windows.computeIfPresent(n, (k, cur) -> cur.isEmpty() ? null : cur);
                continue;
            }
            out.put(n, v);
        }
        return out;
    }

    /** Output tokens so far over every lane (the energy attribution reads this). */
    public long outputTokens() {
        long sum = 0;
        for (AtomicLong a : outputTokens.values()) {
            sum = io.tailwatch.core.probe.InputRange.saturatingAdd(sum, a.get());
        }
        return sum;
    }

    public int inFlight() {
        return inFlight.get();
    }

    /** The proxy's part of /api/status. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("in_flight", inFlight.get());
        m.put("requests", total.get());
        m.put("client_disconnects", disconnects.get());
        m.put("upstream_unreachable", unreachable.get());
        m.put("output_tokens", outputTokens());
        List<Map<String, Object>> ls = new ArrayList<>();
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        lanes.all().forEach(l -> names.add(l.name()));
        names.add(Lanes.DEFAULT);
        names.addAll(byLane.keySet());
        Map<String, LaneWindow.View> views = windowViews(System.nanoTime());
        for (String n : names) {
            Map<String, Object> lm = new LinkedHashMap<>();
            lm.put("lane", n);
            LongAdder c = byLane.get(n);
            long requestsOfLane = c == null ? 0 : c.sum();
            lm.put("requests", requestsOfLane);
            io.tailwatch.core.config.ProxyConfig.Slo slo = lanes.slo(n);
            if (slo != null) {
                LongAdder g = good.get(n);
                long goodOfLane = g == null ? 0 : g.sum();
                LongAdder j = judged.get(n);
                long judgedOfLane = j == null ? 0 : j.sum();
                lm.put("within_slo", goodOfLane);
                lm.put("goodput", judgedOfLane == 0 ? null : (double) goodOfLane / judgedOfLane);
                lm.put("target", slo.target());
                lm.put("ttft_p95_slo_seconds", slo.ttft() == null ? null : slo.ttft().toNanos() / 1e9);
                lm.put("e2e_p95_slo_seconds", slo.e2e() == null ? null : slo.e2e().toNanos() / 1e9);
            }
            LaneWindow.View v = views.get(n);
            if (v != null) {
                Map<String, Object> w = new LinkedHashMap<>();
                w.put("requests", v.requests());
                w.put("goodput", known(v.goodput()));
                w.put("ttft_p95_seconds", known(v.ttftP95()));
                w.put("e2e_p95_seconds", known(v.e2eP95()));
                w.put("queue_wait_p95_seconds", known(v.queueWaitP95()));
                w.put("in_flight", v.inFlight());
                lm.put("window", w);
            }
            ls.add(lm);
        }
        m.put("lanes", ls);
        return m;
    }
}
