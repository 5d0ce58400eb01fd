package io.tailwatch.daemon.signals;

import io.tailwatch.daemon.signals.EngineSignalWatch.State;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Each engine's {@code signals} in the engines part of /api/v1/status: where figures come from and their last values. */
public final class EngineSignalStatus {
    private EngineSignalStatus() {
    }

    /**
     * Adds each engine's signals, as {@code signals}, to the entries of the engines status part (a list
     * of maps keyed by {@code name}); other shapes are returned as they are.
     */
    public static Object addTo(Object enginesPart, EngineSignalMonitor monitor) {
        if (!(enginesPart instanceof List<?> list)) {
            return enginesPart;
        }
        List<Object> out = new ArrayList<>(list.size());
        for (Object o : list) {
            if (o instanceof Map<?, ?> m && m.get("name") instanceof String name && monitor.watch(name) != null) {
                Map<Object, Object> copy = new LinkedHashMap<>(m);
                copy.put("signals", of(monitor.watch(name)));
                out.add(copy);
            } else {
                out.add(o);
            }
        }
        return out;
    }

    public static Map<String, Object> of(EngineSignalWatch w) {
        State s = w.state();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engine", w.config().name());
        m.put("configured_source", w.config().signals().source().configName());
        List<Map<String, Object>> sources = new ArrayList<>();
        if (s.detection() != null) {
            for (EngineSignalSource src : s.detection().sources()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("kind", src.kind());
                x.put("reads", src.describe());
                sources.add(x);
            }
        }
        m.put("sources", sources);
        m.put("families", s.detection() == null ? List.of() : s.detection().families());
        m.put("detection", s.detection() == null ? "not run yet" : s.detection().note());
        m.put("detected_at", s.detectedAt() == null ? null : s.detectedAt().toString());
        m.put("read_at", s.readAt() == null ? null : s.readAt().toString());
        EngineSignals g = s.signals();
        m.put("requests_running", g.running());
        m.put("requests_waiting", g.waiting());
        m.put("kv_cache_usage", g.kvCacheUsage());
        m.put("queue_wait_seconds", g.queueWaitSeconds());
        m.put("queue_wait_source", g.queueWaitSource());
        m.put("details", g.details());
        m.put("failures", w.failureCounts());
        EngineSignalWatch.LastFailure f = s.lastFailure();
        if (f == null) {
            m.put("last_failure", null);
        } else {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("source", f.source());
            x.put("error_type", f.errorType());
            x.put("message", f.message());
            x.put("at", f.at().toString());
            m.put("last_failure", x);
        }
        return m;
    }
}
