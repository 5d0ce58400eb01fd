package io.tailwatch.daemon.ready;

import io.tailwatch.daemon.ready.ReadinessInput.EngineState;
import io.tailwatch.metrics.AttrValues.ReadyReason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The verdict's rules (docs/routing.md, "The rules"): a pure function of one {@link ReadinessInput} and the
 * previous {@link Verdict} of the same engine.
 *
 * <p>Each rule gives {@code HOLDS}, {@code CLEAR}, or {@code BAND} (between its clear and raise thresholds:
 * it keeps holding if it held before). A reason that held keeps holding for {@link #HOLD} after its rule last
 * said so, so a verdict turns to ready at most once per {@code HOLD} and never flaps at every sample; it
 * turns to not ready at once.
 */
public final class Readiness {
    private Readiness() {
    }

    /** How long a reason keeps holding after its rule last held. */
    public static final Duration HOLD = Duration.ofSeconds(1);
    /** A latency reason raised above the SLO clears only below this share of it. */
    static final double CLEAR_SHARE = 0.8;
    /** Memory pressure level that is not ready (critical: the host compresses and swaps hard). */
    static final double PRESSURE_CRITICAL = 2;
    /** Swap growth between two host samples that is not ready; any growth keeps it. */
    static final double SWAP_GROWTH_BYTES = 64.0 * 1024 * 1024;
    /** GPU working-set share that is not ready, and the share below which it clears. */
    static final double GPU_SHARE_RAISE = 0.9;
    static final double GPU_SHARE_CLEAR = 0.85;
    /** Thermal pressure level that is not ready (heavy), and the CPU speed limit below which it is. */
    static final double THERMAL_HEAVY = 2;
    static final double SPEED_LIMIT_RAISE = 0.8;
    static final double SPEED_LIMIT_CLEAR = 0.85;
    /** The most requests the SLO lets wait behind the slots, whatever the baseline says. */
    static final int MAX_ALLOWED_QUEUE = 8;
    /** Bounds of Retry-After, seconds. */
    static final long MIN_RETRY = 1;
    static final long MAX_RETRY = 300;

    enum Level { HOLDS, BAND, CLEAR, UNKNOWN }

    /** The verdict for {@code in}, with {@link #HOLD} of hysteresis after {@code previous} (null: none before). */
    public static Verdict evaluate(ReadinessInput in, Verdict previous) {
        return evaluate(in, previous, HOLD);
    }

    public static Verdict evaluate(ReadinessInput in, Verdict previous, Duration hold) {
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> unknown = new ArrayList<>();
        Map<ReadyReason, Level> levels = new EnumMap<>(ReadyReason.class);
        figures.put("engine_state", in.engine().name().toLowerCase(java.util.Locale.ROOT));
        levels.put(ReadyReason.DOWN, in.engine() == EngineState.DOWN ? Level.HOLDS : Level.CLEAR);
        levels.put(ReadyReason.LOADING, in.engine() == EngineState.LOADING ? Level.HOLDS : Level.CLEAR);
        if (in.engine() == EngineState.UNKNOWN) {
            unknown.add("engine_state");
        }

        Queue q = queue(in, figures);
        levels.put(ReadyReason.QUEUE_FULL, q.full);
        if (q.full == Level.UNKNOWN && in.queueWaitSeconds() == null && in.engine() == EngineState.UP) {
            unknown.add("queue");
        }
        double slo = in.ttftSloSeconds();
        figures.put("ttft_slo_seconds", slo);
        put(figures, "queue_wait_seconds", in.queueWaitSeconds());
        put(figures, "queue_wait_source", in.queueWaitSource());
        levels.put(ReadyReason.QUEUE_WAIT_OVER_SLO, banded(in.queueWaitSeconds(), slo, slo * CLEAR_SHARE));
        Double ttft = in.ttftSeconds();
        put(figures, "ttft_seconds", ttft == null ? null : ttft.isInfinite() ? "no first token in time" : ttft);
        levels.put(ReadyReason.TTFT_OVER_SLO, banded(ttft, slo, slo * CLEAR_SHARE));

        put(figures, "memory_pressure", in.memoryPressure());
        levels.put(ReadyReason.MEMORY_PRESSURE, in.memoryPressure() == null ? Level.UNKNOWN
                : in.memoryPressure() >= PRESSURE_CRITICAL ? Level.HOLDS : Level.CLEAR);
        if (in.memoryPressure() == null) {
            unknown.add("memory_pressure");
        }
        put(figures, "swap_growth_bytes", in.swapGrowthBytes());
        levels.put(ReadyReason.SWAP_GROWING, in.swapGrowthBytes() == null ? Level.UNKNOWN
                : in.swapGrowthBytes() >= SWAP_GROWTH_BYTES ? Level.HOLDS : in.swapGrowthBytes() > 0 ? Level.BAND : Level.CLEAR);
        put(figures, "gpu_memory_share", in.gpuShare());
        levels.put(ReadyReason.GPU_MEMORY_NEAR_LIMIT, banded(in.gpuShare(), GPU_SHARE_RAISE, GPU_SHARE_CLEAR));
        put(figures, "thermal_level", in.thermalLevel());
        put(figures, "cpu_speed_limit", in.cpuSpeedLimit());
        levels.put(ReadyReason.THERMAL_LIMITED, thermal(in.thermalLevel(), in.cpuSpeedLimit()));
        for (String optional : new String[] {"swap_growth", "gpu_memory_share", "thermal"}) {
            boolean missing = switch (optional) {
                case "swap_growth" -> in.swapGrowthBytes() == null;
                case "gpu_memory_share" -> in.gpuShare() == null;
                default -> in.thermalLevel() == null && in.cpuSpeedLimit() == null;
            };
            if (missing) {
                unknown.add(optional);
            }
        }
        // Required: the engine's state, a queue figure and memory pressure. Without them there is no 200.
        boolean required = in.engine() == EngineState.UNKNOWN || unknown.contains("queue") || unknown.contains("memory_pressure");
        levels.put(ReadyReason.UNKNOWN, required ? Level.HOLDS : Level.CLEAR);

        Map<ReadyReason, Instant> heldAt = new EnumMap<>(ReadyReason.class);
        List<ReadyReason> reasons = new ArrayList<>();
        Instant now = in.at();
        for (ReadyReason r : ReadyReason.values()) {
            if (r == ReadyReason.NONE) {
                continue;
            }
            Level l = levels.getOrDefault(r, Level.CLEAR);
            Instant last = previous == null ? null : previous.heldAt().get(r);
            boolean heldBefore = previous != null && previous.reasons().contains(r);
            if (l == Level.HOLDS) {
                heldAt.put(r, now);
                reasons.add(r);
            } else if (heldBefore && (l == Level.BAND || last != null && now.isBefore(last.plus(hold)))) {
                // Hysteresis: inside the band, or within HOLD of the last time the rule held.
                heldAt.put(r, l == Level.BAND ? now : last);
                reasons.add(r);
            }
        }
        Integer headroom = reasons.isEmpty() ? q.headroom : Integer.valueOf(0);
        return new Verdict(now, reasons, figures, unknown, headroom, retryAfter(in, reasons, hold), heldAt);
    }

    /** What a queue rule saw: its level and, when the limit is known, the requests still free. */
    private record Queue(Level full, Integer headroom) {
    }

    /**
     * Serial or slotted engines (slots known): full when the requests in it (the larger of the proxy's in
     * flight and the engine's running plus waiting) reach the slots plus the queue the SLO allows: as many
     * waiting requests as fit in the TTFT SLO at the single-request baseline each, 0 when the baseline is
     * unknown. Any engine: full when it reports more requests waiting than that queue allows.
     */
    private static Queue queue(ReadinessInput in, Map<String, Object> figures) {
        put(figures, "slots", in.slots());
        put(figures, "slots_source", in.slotsSource());
        put(figures, "in_flight", in.inFlight());
        put(figures, "requests_running", in.running());
        put(figures, "requests_waiting", in.waiting());
        put(figures, "baseline_e2e_seconds", in.baselineSeconds());
        Double engineSide = in.running() == null && in.waiting() == null ? null
                : (in.running() == null ? 0 : in.running()) + (in.waiting() == null ? 0 : in.waiting());
        Double demand = engineSide;
        if (in.inFlight() != null) {
            demand = engineSide == null ? Double.valueOf(in.inFlight()) : Double.valueOf(Math.max(in.inFlight(), engineSide));
        }
        int allowed = in.baselineSeconds() == null ? 0
                : (int) Math.min(MAX_ALLOWED_QUEUE, Math.floor(in.ttftSloSeconds() / in.baselineSeconds()));
        figures.put("allowed_queue", allowed);
        put(figures, "demand", demand);
        boolean waitingOver = in.waiting() != null && in.waiting() > allowed;
        if (in.slots() != null && demand != null) {
            int limit = in.slots() + allowed;
            figures.put("limit", limit);
            boolean full = demand >= limit || waitingOver;
            return new Queue(full ? Level.HOLDS : Level.CLEAR, full ? 0 : (int) Math.max(0, limit - Math.ceil(demand)));
        }
        if (in.waiting() != null) {
            return new Queue(waitingOver ? Level.HOLDS : Level.CLEAR, null);
        }
        return new Queue(Level.UNKNOWN, null);
    }

    private static Level banded(Double value, double raise, double clear) {
        if (value == null) {
            return Level.UNKNOWN;
        }
        return value > raise ? Level.HOLDS : value > clear ? Level.BAND : Level.CLEAR;
    }

    private static Level thermal(Double level, Double speed) {
        if (level == null && speed == null) {
            return Level.UNKNOWN;
        }
        if (level != null && level >= THERMAL_HEAVY || speed != null && speed < SPEED_LIMIT_RAISE) {
            return Level.HOLDS;
        }
        return speed != null && speed < SPEED_LIMIT_CLEAR ? Level.BAND : Level.CLEAR;
    }

    /** The longest time until a figure behind a held reason can next change, and never less than the hold. */
    private static long retryAfter(ReadinessInput in, List<ReadyReason> reasons, Duration hold) {
        Duration d = hold;
        for (ReadyReason r : reasons) {
            Duration next = switch (r) {
                case DOWN, LOADING -> in.engineRefresh();
                case QUEUE_FULL, QUEUE_WAIT_OVER_SLO -> in.queueRefresh();
                case MEMORY_PRESSURE, SWAP_GROWING, GPU_MEMORY_NEAR_LIMIT, THERMAL_LIMITED -> in.hostRefresh();
                default -> in.engineRefresh().compareTo(in.hostRefresh()) > 0 ? in.engineRefresh() : in.hostRefresh();
            };
            if (next.compareTo(d) > 0) {
                d = next;
            }
        }
        long s = (d.toMillis() + 999) / 1000;
        return Math.max(MIN_RETRY, Math.min(MAX_RETRY, s));
    }

    private static void put(Map<String, Object> m, String key, Object value) {
        if (value != null) {
            m.put(key, value);
        }
    }
}
