package io.tailwatch.daemon.engine;

import io.tailwatch.core.kv.KvCacheMath;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.LoadedModel;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.metrics.AttrValues.Percentile;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The engines part of /api/v1/status: health, inventory, last probes and window figures. */
final class EngineStatus {
    private EngineStatus() {
    }

    static List<Map<String, Object>> of(List<EngineWatch> watches) {
        List<Map<String, Object>> out = new ArrayList<>();
        Instant now = Instant.now();
        for (EngineWatch w : watches) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", w.config().name());
            e.put("api", w.config().api());
            e.put("url", io.tailwatch.core.logging.Redact.url(w.config().url()));
            e.put("provider", w.provider());
            EngineHealth h = w.health();
            e.put("checked_at", h == null ? null : h.checkedAt());
            e.put("up", h == null ? null : h.up());
            String state = w.state();
            e.put("state", state);
            // A configured engine that never answered is a warning to look at, not a page.
            e.put("severity", state == null ? null : state.equals("never_reachable") || state.equals("needs_key") ? "warning"
                    : state.equals("down") ? "critical" : "ok");
            e.put("loading", h == null ? null : h.loading());
            e.put("version", h == null ? null : h.version());
            e.put("error", h == null ? null : h.error());
            if (h != null && h.limit() != null) {
                e.put(io.tailwatch.core.http.ProbeErrors.OVER_LIMIT, h.limit());
                e.put("models_total", h.modelsTotal());
            }
            List<Map<String, Object>> models = new ArrayList<>();
            if (h != null) {
                for (LoadedModel m : h.models()) {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("name", m.name());
                    x.put("size_bytes", m.sizeBytes());
                    x.put("vram_bytes", m.vramBytes());
                    x.put("context_length", m.contextLength());
                    x.put("expires_at", m.expiresAt());
                    io.tailwatch.core.probe.ModelFacts f = w.modelFacts(m.name());
                    x.put("format", f.format());
                    x.put("quantization", f.quantization());
                    if (m.shape() != null) {
                        double perToken = KvCacheMath.bytesPerToken(m.shape(), EngineWatch.KV_BYTES_PER_ELEMENT);
                        x.put("architecture", m.shape().architecture());
                        x.put("kv_bytes_per_token", perToken);
                        x.put("kv_context_bytes", m.contextLength() == null ? null : perToken * m.contextLength());
                    }
                    // The same headroom the metrics and GpuMemoryLimitNear read (KvPlan.headroom).
                    io.tailwatch.core.kv.KvPlan.Headroom room = w.headroom(m, h.models().size());
                    x.put("footprint_bytes", room.footprintBytes());
                    x.put("gpu_used_bytes", room.gpuShare() == null ? null : room.usedBytes());
                    x.put("gpu_memory_share", room.gpuShare());
                    x.put("kv_headroom_tokens", room.headroomTokens());
                    x.put("kv_headroom_bound", room.bound() == null ? null : room.bound().wireName());
                    models.add(x);
                }
            }
            e.put("models", models);
            e.put("probes_skipped", w.skippedCounts());
            List<Map<String, Object>> scenarios = new ArrayList<>();
            double duty = 0;
            for (EngineWatch.ScenarioState s : w.scenarioStates()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("name", s.config.name());
                x.put("interval_seconds", s.config.interval().toMillis() / 1000.0);
                ProbeResult r = s.last;
                x.put("last", r == null ? null : last(r, w.servedModel()));
                if (r != null) {
                    duty += r.e2eSeconds() / (s.config.interval().toMillis() / 1000.0);
                }
                List<Map<String, Object>> windows = new ArrayList<>();
                for (Map.Entry<String, ProbeWindow.Stats> ws : w.windowStats(s, now).entrySet()) {
                    ProbeWindow.Stats st = ws.getValue();
                    Map<String, Object> y = new LinkedHashMap<>();
                    y.put("model", ws.getKey());
                    y.put("samples", st.samples());
                    y.put("error_ratio", st.samples() == 0 ? null : st.errorRatio());
                    y.put("e2e_seconds", quantiles(st.e2eP50(), st.e2eP95(), st.e2eP99()));
                    y.put("ttft_seconds", quantiles(st.ttftP50(), st.ttftP95(), st.ttftP99()));
                    windows.add(y);
                }
                x.put("windows", windows);
                scenarios.add(x);
            }
            // Share of wall time the engine spends serving probes (last e2e / interval, summed).
            e.put("probe_duty_cycle", duty);
            e.put("scenarios", scenarios);
            out.add(e);
        }
        return out;
    }

    private static Map<String, Object> quantiles(Double p50, Double p95, Double p99) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(Percentile.P50.value(), p50);
        m.put(Percentile.P95.value(), p95);
        m.put(Percentile.P99.value(), p99);
        return m;
    }

    /** The last probe; a probe that named no model shows the served model ({@code served}) or unknown. */
    static Map<String, Object> last(ProbeResult r, String served) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("at", r.startedAt());
        m.put("model", io.tailwatch.core.probe.EngineClient.recordedModel(r.model(), served));
        m.put("success", r.success());
        m.put("error_type", r.errorType());
        m.put("error_message", r.errorMessage());
        m.putAll(r.figures());
        return m;
    }
}
