package io.tailwatch.daemon.ready;

import io.tailwatch.metrics.AttrValues.ReadyReason;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One engine's verdict: ready when no reason holds. {@code heldAt} remembers when each reason last held
 * by its raw rule, which is what the next evaluation's hysteresis reads.
 *
 * @param reasons           the reasons that hold, in the order of {@link ReadyReason}
 * @param figures           the figures behind the verdict (unknown ones left out)
 * @param unknown           the signals that could not be read (a required one also makes {@code unknown} a reason)
 * @param headroom          more concurrent requests the engine is estimated to take (0 while not ready), or null
 * @param retryAfterSeconds how long a router should wait before asking again while not ready
 */
public record Verdict(Instant at, List<ReadyReason> reasons, Map<String, Object> figures, List<String> unknown,
                      Integer headroom, long retryAfterSeconds, Map<ReadyReason, Instant> heldAt) {

    public Verdict {
        reasons = List.copyOf(reasons);
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        unknown = List.copyOf(unknown);
        heldAt = heldAt.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(heldAt));
    }

    /** No evaluation yet. */
    public static final Verdict NONE = new Verdict(Instant.EPOCH, List.of(ReadyReason.UNKNOWN), Map.of(), List.of(), null, 1,
            Map.of());

    public boolean ready() {
        return reasons.isEmpty();
    }

    /** The first reason that holds, or {@link ReadyReason#NONE}. */
    public ReadyReason primary() {
        return reasons.isEmpty() ? ReadyReason.NONE : reasons.get(0);
    }

    /** The verdict as the endpoint, the status and the status page show it. */
    public Map<String, Object> toJson(String engine) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engine", engine);
        m.put("verdict", ready() ? "ready" : "not_ready");
        m.put("ready", ready());
        m.put("reasons", reasons.stream().map(ReadyReason::value).toList());
        m.put("headroom", headroom);
        m.put("figures", figures);
        m.put("unknown", unknown);
        m.put("at", at);
        if (!ready()) {
            m.put("retry_after_seconds", retryAfterSeconds);
        }
        return m;
    }
}
