package io.tailwatch.daemon.status;

import io.tailwatch.core.rules.Signals;
import io.tailwatch.metrics.AttrValues.PagingDirection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The last hour of the signals that move, behind the status page's charts and GET /api/v1/history.
 * One fixed-size ring per series: {@link #SLOTS} slots of {@code step} seconds (10 s, or the host
 * interval when that is longer), each holding the last value recorded in it. A series is a chart name
 * plus its labels (engine, model, scenario, rail); at most {@link #MAX_SERIES} exist at once, further
 * ones are counted and dropped, and a series with no value for an hour is removed. The values are the
 * figures /api/v1/status reports in the same cycle (the host part and the rule signals), so a chart
 * never disagrees with the status it sits beside. Unknown values leave a gap, never a 0. Thread-safe.
 */
public final class StatusHistory {
    public static final Duration SPAN = Duration.ofHours(1);
    public static final int SLOTS = 360;
    public static final int MAX_SERIES = 64;

    /** The charts and their units, in the order the page draws them. */
    public static final String SWAP = "swap_used_bytes";
    public static final String PRESSURE = "memory_pressure_level";
    public static final String PAGING = "paging_pages_per_second";
    public static final String TTFT_P95 = "ttft_p95_seconds";
    public static final String E2E_P95 = "e2e_p95_seconds";
    public static final String DECODE = "decode_tokens_per_second";
    public static final String POWER = "power_watts";
    public static final String CPU = "cpu_utilization";

    private final long stepSeconds;
    private final Map<String, Ring> series = new LinkedHashMap<>();
    private long dropped;

    public StatusHistory(Duration hostInterval) {
        long span = SPAN.toSeconds() / SLOTS;
        this.stepSeconds = Math.max(span, (hostInterval.toMillis() + 999) / 1000);
    }

    public long stepSeconds() {
        return stepSeconds;
    }

    /** Records one cycle: the host part of the status (as {@link HostStatus#of} builds it) and the rule signals. */
    @SuppressWarnings("unchecked")
    public void record(Instant at, Map<String, Object> host, Signals signals) {
        Map<String, Double> values = new LinkedHashMap<>();
        Map<String, Map<String, String>> labels = new LinkedHashMap<>();
        put(values, labels, SWAP, Map.of(), signals.host().swapUsedBytes());
        put(values, labels, PRESSURE, Map.of(), signals.host().memoryPressureLevel());
        if (host.get("paging") instanceof Map<?, ?> paging) {
            for (PagingDirection d : PagingDirection.values()) {
                put(values, labels, PAGING, Map.of("direction", d.value()), number(paging.get(d.value() + "_per_second")));
            }
        }
        if (host.get("power") instanceof Map<?, ?> power) {
            for (Map.Entry<?, ?> e : power.entrySet()) {
                String rail = String.valueOf(e.getKey()).replaceFirst("_watts$", "");
                put(values, labels, POWER, Map.of("rail", rail), number(e.getValue()));
            }
        }
        if (host.get("cpu") instanceof Map<?, ?> cpu) {
            put(values, labels, CPU, Map.of(), number(((Map<String, Object>) cpu).get("busy_ratio")));
        }
        for (Signals.Window w : signals.windows()) {
            Map<String, String> l = new LinkedHashMap<>();
            l.put("engine", w.engine());
            l.put("model", w.model());
            l.put("scenario", w.scenario());
            put(values, labels, TTFT_P95, l, w.ttftP95());
            put(values, labels, E2E_P95, l, w.e2eP95());
            put(values, labels, DECODE, l, w.decodeRate());
        }
        record(at, values, labels);
    }

    private static Double number(Object o) {
        return o instanceof Number n ? n.doubleValue() : null;
    }

    private static void put(Map<String, Double> values, Map<String, Map<String, String>> labels, String chart,
                            Map<String, String> l, Double v) {
        String key = key(chart, l);
        labels.put(key, l);
        if (v != null && Double.isFinite(v)) {
            values.put(key, v);
        }
    }

    static String key(String chart, Map<String, String> labels) {
        StringBuilder b = new StringBuilder(chart);
        for (Map.Entry<String, String> e : labels.entrySet()) {
            b.append('\u0000').append(e.getKey()).append('=').append(e.getValue());
        }
        return b.toString();
    }

    private synchronized void record(Instant at, Map<String, Double> values, Map<String, Map<String, String>> labels) {
        long slot = at.getEpochSecond() / stepSeconds;
        for (Map.Entry<String, Double> e : values.entrySet()) {
            Ring r = series.get(e.getKey());
            if (r == null) {
                if (series.size() >= MAX_SERIES) {
                    dropped++;
                    continue;
                }
                String chart = e.getKey().substring(0, e.getKey().indexOf('\u0000') < 0 ? e.getKey().length()
                        : e.getKey().indexOf('\u0000'));
                r = new Ring(chart, Map.copyOf(labels.get(e.getKey())));
                series.put(e.getKey(), r);
            }
            r.put(slot, e.getValue().floatValue());
        }
        for (Iterator<Ring> it = series.values().iterator(); it.hasNext(); ) {
            if (it.next().last <= slot - SLOTS) {
                it.remove();
            }
        }
    }

    /** The JSON body of GET /api/v1/history: every series' points (epoch seconds, value), oldest first. */
    public synchronized Map<String, Object> toJson(Instant now) {
        long slot = now.getEpochSecond() / stepSeconds;
        List<Map<String, Object>> out = new ArrayList<>();
        for (Ring r : series.values()) {
            List<Object[]> points = r.points(slot, stepSeconds);
            if (points.isEmpty()) {
                continue;
            }
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("chart", r.chart);
            s.put("labels", new java.util.TreeMap<>(r.labels));
            s.put("points", points);
            out.add(s);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("span_seconds", SPAN.toSeconds());
        m.put("step_seconds", stepSeconds);
        m.put("series", out);
        m.put("dropped_series", dropped);
        return m;
    }

    /** How many series are held now (for the footprint figures). */
    public synchronized int size() {
        return series.size();
    }

    /** One series: slot numbers and values, each slot the last value recorded in its step. */
    private static final class Ring {
        final String chart;
        final Map<String, String> labels;
        final int[] slots = new int[SLOTS];
        final float[] values = new float[SLOTS];
        long last = Long.MIN_VALUE;

        Ring(String chart, Map<String, String> labels) {
            this.chart = chart;
            this.labels = labels;
            java.util.Arrays.fill(slots, Integer.MIN_VALUE);
        }

        void put(long slot, float v) {
            int i = (int) Math.floorMod(slot, (long) SLOTS);
            slots[i] = (int) slot;
            values[i] = v;
            last = Math.max(last, slot);
        }

        List<Object[]> points(long now, long step) {
            List<Object[]> out = new ArrayList<>();
            for (long s = now - SLOTS + 1; s <= now; s++) {
                int i = (int) Math.floorMod(s, (long) SLOTS);
                if (slots[i] == s) {
                    // The float's shortest text: 0.172 stays 0.172 in the JSON, not 0.17200000584125519.
                    out.add(new Object[] {s * step, Double.parseDouble(Float.toString(values[i]))});
                }
            }
            return out;
        }
    }
}
