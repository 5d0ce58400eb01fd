package io.tailwatch.daemon.signals;

import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrValues.SignalSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Queue wait estimated from the probes, for engines that report no queue (mlx_lm.server, Ollama).
 * mlx_lm.server sends response headers only when its generation thread takes the request, so time to
 * headers is queue wait plus a network round trip. Ollama sends them with the first chunk, so its
 * header time also holds model load and prompt processing. Both are handled the same way: from each
 * probe's time to headers, less the model load it reported, the lowest such time among recent probes
 * of the same model and prompt size (the uncontended floor: round trip, or prefill) is subtracted.
 * What is left is time spent waiting for the engine. It is an estimate: it sees only the probes'
 * own waits, once per probe, and a floor taken while the engine was always busy hides part of the wait.
 * mlx_lm.server 0.28 and later batches and sends headers when it admits a request into its batch, so its
 * time to headers is no queue wait: for it there is no estimate (absent, not wrong).
 */
public final class HeaderTimeEstimate implements EngineSignalSource {
    public static final String KIND = SignalSource.HEADER_ESTIMATE.value();
    /** Probes per (model, prompt size) that the floor is the minimum of. */
    static final int FLOOR_WINDOW = 32;
    static final int MAX_KEYS = 16;

    private final Duration maxAge;
    private final Clock clock;
    private final Map<String, Deque<Double>> floors = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<Double>> e) {
            return size() > MAX_KEYS;
        }
    };
    private Estimate last;
    private String note = "no probe has completed yet";

    /** One estimate: when the probe started, its header time, the floor, and the wait. */
    public record Estimate(Instant probeAt, double headersSeconds, double floorSeconds, double waitSeconds) {
    }

    /** @param maxAge an estimate older than this (no newer probe) is dropped rather than repeated */
    public HeaderTimeEstimate(Duration maxAge, Clock clock) {
        this.maxAge = maxAge;
        this.clock = clock;
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "probe time to response headers";
    }

    /** Takes one probe result (called by the engine monitor after every probe). */
    public synchronized void onProbe(ProbeResult r) {
        onProbe(r, false);
    }

    /**
     * Takes one probe result; {@code headersAtAdmission}: the engine sends its headers when it admits the
     * request into its batch (mlx_lm.server), so the result gives no estimate.
     */
    public synchronized void onProbe(ProbeResult r, boolean headersAtAdmission) {
        if (headersAtAdmission) {
            last = null;
            note = "the engine sends its response headers when it admits a request into its batch (mlx_lm.server"
                    + " 0.28 and later): its time to headers is not queue wait, so none is estimated";
            return;
        }
        Instant at = r.startedAt() == null ? clock.instant() : r.startedAt();
        if (r.timeToHeadersSeconds() == null) {
            last = null;
            note = "the last probe got no response headers (" + r.errorType() + ")";
            return;
        }
        double t = r.timeToHeadersSeconds();
        if (r.loadSeconds() != null && r.loadSeconds() > 0) {
            t = Math.max(0, t - r.loadSeconds());
        }
        Deque<Double> window = floors.computeIfAbsent(key(r), k -> new ArrayDeque<>());
        window.addLast(t);
        while (window.size() > FLOOR_WINDOW) {
            window.removeFirst();
        }
        double floor = Double.POSITIVE_INFINITY;
        for (double x : window) {
            floor = Math.min(floor, x);
        }
        last = new Estimate(at, r.timeToHeadersSeconds(), floor, Math.max(0, t - floor));
        note = null;
    }

    /** Probes of one model with prompts of one size class (powers of two) share a floor. */
    static String key(ProbeResult r) {
        Long in = r.inputTokens();
        int sizeClass = in == null || in <= 0 ? 0 : 64 - Long.numberOfLeadingZeros(in);
        return r.model() + "#" + sizeClass;
    }

    public synchronized Estimate last() {
        return last;
    }

    @Override
    public synchronized EngineSignals read(Duration deadline) {
        Estimate e = last;
        if (e == null) {
            return new EngineSignals(null, null, null, null, null, note == null ? Map.of() : Map.of("estimate_note", note));
        }
        if (Duration.between(e.probeAt(), clock.instant()).compareTo(maxAge) > 0) {
            return new EngineSignals(null, null, null, null, null,
                    Map.of("estimate_note", "no probe in the last " + maxAge.toSeconds() + " s"));
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("estimate_probe_at", e.probeAt().toString());
        d.put("estimate_time_to_headers_seconds", e.headersSeconds());
        d.put("estimate_floor_seconds", e.floorSeconds());
        return new EngineSignals(null, null, null, e.waitSeconds(), EngineSignals.ESTIMATE, d);
    }
}
