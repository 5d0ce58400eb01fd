package io.tailwatch.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.kv.GpuMemoryNow;
import io.tailwatch.core.kv.KvPlan;
import io.tailwatch.core.logging.LogGuard;
import io.tailwatch.core.units.Units;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code kv-budget --live}: the GPU memory figures read from the agent's status or a sample of this host,
 * and how they print. A figure that was not read is left out of both the text and the JSON, never shown as 0.
 */
final class LiveGpuMemory {
    /** The agent's answer deadline, as `tailwatch status --timeout` defaults to. */
    static final Duration AGENT_TIMEOUT = Duration.ofSeconds(5);
    /** Bounds the engines read from an agent's answer. */
    static final int MAX_ENGINES = 64;

    private LiveGpuMemory() {
    }

    /** From the {@code host} part of /api/v1/status ({@code gpu_memory.limit_bytes}, {@code processes[].gpu_memory_bytes}). */
    static GpuMemoryNow fromStatus(String source, JsonNode host) {
        Map<String, Long> engines = new LinkedHashMap<>();
        for (JsonNode p : host.path("processes")) {
            if (engines.size() >= MAX_ENGINES) {
                break;
            }
            Long bytes = bytes(p.path("gpu_memory_bytes"));
            String engine = p.path("engine").asText("");
            if (bytes != null && !engine.isEmpty()) {
                engines.put(engine, bytes);
            }
        }
        return new GpuMemoryNow(source, bytes(host.path("gpu_memory").path("limit_bytes")),
                bytes(host.path("memory").path("available_bytes")), engines);
    }

    /** From a sample of this host, as the daemon takes it. */
    static GpuMemoryNow fromSnapshot(String source, HostSnapshot s) {
        Map<String, Long> engines = new LinkedHashMap<>();
        for (Point p : s.points()) {
            if (p.metric() == HostMetrics.PROCESS_GPU_MEMORY && p.value() >= 0 && engines.size() < MAX_ENGINES) {
                engines.put(p.attributes().get(AttrKeys.ENGINE), (long) p.value());
            }
        }
        Double limit = s.gpuMemoryLimit();
        Double available = s.memoryAvailable();
        return new GpuMemoryNow(source, limit == null ? null : limit.longValue(), available == null ? null : available.longValue(),
                engines);
    }

    /** A non-negative whole number of bytes, or null (absent, null, text, negative). */
    private static Long bytes(JsonNode n) {
        return n.isIntegralNumber() && n.canConvertToLong() && n.asLong() >= 0 ? n.asLong() : null;
    }

    static ObjectNode json(GpuMemoryNow now, KvPlan.Sizing sizing) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("source", now.source());
        putIfKnown(o, "gpu_limit_bytes", now.limitBytes());
        putIfKnown(o, "available_bytes", now.availableBytes());
        var engines = o.putArray("engines");
        now.engines().forEach((name, bytes) -> engines.addObject().put("engine", name).put("gpu_memory_bytes", bytes));
        putIfKnown(o, "engines_gpu_memory_bytes", now.enginesBytes());
        KvPlan.Headroom h = now.headroom(sizing);
        putIfKnown(o, "gpu_left_bytes", h.gpuLeftBytes() == null ? null : h.gpuLeftBytes().longValue());
        if (h.gpuShare() != null) {
            o.put("gpu_share", h.gpuShare());
        }
        putIfKnown(o, "headroom_tokens", h.headroomTokens());
        if (h.bound() != null) {
            o.put("headroom_bound", h.bound().wireName());
        }
        return o;
    }

    static void print(PrintWriter out, GpuMemoryNow now, KvPlan.Sizing sizing) {
        out.println("live, from " + now.source() + ":");
        out.println("  GPU working-set limit: " + (now.limitBytes() == null
                ? "not known (a Mac's Metal figure; none on this host)" : Units.formatBytes(now.limitBytes())));
        if (now.engines().isEmpty()) {
            out.println("  graphics memory of the engines: not known (macOS TASK_VM_INFO; no engine process read)");
        }
        now.engines().forEach((name, bytes) -> out.println("  " + LogGuard.escape(name, 64) + " graphics memory: "
                + Units.formatBytes(bytes) + " (its processes together)"));
        KvPlan.Headroom h = now.headroom(sizing);
        if (h.gpuLeftBytes() != null) {
            long left = h.gpuLeftBytes().longValue();
            out.printf(Locale.ROOT, "  engines together: %s, %.0f %% of the limit; %s%n", Units.formatBytes(now.enginesBytes()),
                    100 * h.gpuShare(), left >= 0 ? Units.formatBytes(left) + " left under it" : Units.formatBytes(-left) + " over it");
        }
        if (h.headroomTokens() != null) {
            out.printf(Locale.ROOT, "  headroom: %d more tokens of this KV cache (the %s binds)%n", h.headroomTokens(),
                    h.bound().text());
        }
    }

    private static void putIfKnown(ObjectNode o, String key, Long v) {
        if (v != null) {
            o.put(key, v);
        }
    }
}
