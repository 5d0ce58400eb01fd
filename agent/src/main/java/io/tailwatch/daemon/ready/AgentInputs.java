package io.tailwatch.daemon.ready;

import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.probe.EngineHealth;
import io.tailwatch.core.probe.ProbeResult;
import io.tailwatch.daemon.alerts.BaselineStore;
import io.tailwatch.daemon.engine.EngineMonitor;
import io.tailwatch.daemon.engine.EngineWatch;
import io.tailwatch.daemon.proxy.EngineProxies;
import io.tailwatch.daemon.proxy.EngineProxy;
import io.tailwatch.daemon.ready.ReadinessInput.EngineState;
import io.tailwatch.daemon.signals.EngineSignalMonitor;
import io.tailwatch.daemon.signals.EngineSignalWatch;
import io.tailwatch.daemon.signals.EngineSignals;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.EngineMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * Builds each engine's {@link ReadinessInput} from what the agent holds now: the engine's last health check,
 * its engine-side signals, its proxy's in-flight count, its latest interactive probe and single-request
 * baseline, the host's latest sample and the GPU share the hub last published. Reads only; contacts nothing.
 * A figure older than three of its intervals counts as unknown.
 */
public final class AgentInputs {
    /** A figure is stale after this many of its intervals. */
    static final int STALE_AFTER = 3;
    /** Servers that generate one request at a time and queue the rest (docs/engines.md). */
    static final List<String> SERIAL = List.of("mlx_lm");

    private final Supplier<EngineMonitor> engines;
    private final Supplier<EngineSignalMonitor> signals;
    private final Supplier<EngineProxies> proxies;
    private final Supplier<HostSampling> host;
    private final Supplier<BaselineStore> baselines;
    private final DoubleSupplier ttftSlo;
    private final MetricHub hub;
    private final Clock clock;

    public AgentInputs(Supplier<EngineMonitor> engines, Supplier<EngineSignalMonitor> signals, Supplier<EngineProxies> proxies,
                       Supplier<HostSampling> host, Supplier<BaselineStore> baselines, DoubleSupplier ttftSlo, MetricHub hub,
                       Clock clock) {
        this.engines = engines;
        this.signals = signals;
        this.proxies = proxies;
        this.host = host;
        this.baselines = baselines;
        this.ttftSlo = ttftSlo;
        this.hub = hub;
        this.clock = clock;
    }

    /** The TTFT SLO of {@code config}: the TtftOverSlo threshold, seconds. */
    public static double ttftSlo(io.tailwatch.core.config.Config config) {
        io.tailwatch.core.config.RulesConfig.RuleSettings r = config.rules().of(io.tailwatch.core.rules.Rules.TTFT_OVER_SLO.name());
        return r == null || r.threshold() == null ? io.tailwatch.core.rules.Rules.TTFT_OVER_SLO.defaultThreshold() : r.threshold();
    }

    /** The engines watched now. */
    public List<String> engines() {
        EngineMonitor m = engines.get();
        return m == null ? List.of() : m.watches().stream().map(w -> w.config().name()).toList();
    }

    public ReadinessInput input(String name) {
        Instant now = clock.instant();
        EngineWatch w = engines.get().watch(name);
        double slo = ttftSlo.getAsDouble();
        if (w == null) {
            return ReadinessInput.of(now, EngineState.UNKNOWN, slo);
        }
        EngineHealth h = w.health();
        ReadinessInput in = ReadinessInput.of(now, state(w, h, now), slo);

        EngineSignalMonitor sm = signals.get();
        EngineSignalWatch sw = sm == null ? null : sm.watch(name);
        EngineSignals s = EngineSignals.EMPTY;
        Duration signalEvery = w.config().signals().interval();
        if (sw != null && sw.state().readAt() != null
                && !sw.state().readAt().plus(signalEvery.multipliedBy(STALE_AFTER)).isBefore(now)) {
            s = sw.state().signals();
        }
        Integer slots = null;
        String slotsSource = null;
        if (s.details().get("slots_total") instanceof Number n) {
            slots = n.intValue();
            slotsSource = s.details().get("slots_source") instanceof String named ? named : "llama.cpp /slots";
        } else if (h != null && SERIAL.contains(h.provider())) {
            slots = 1;
            slotsSource = h.provider() + ": batch size not readable, counted as one slot";
        }
        EngineProxies ps = proxies.get();
        EngineProxy p = ps == null ? null : ps.proxy(name);
        Integer inFlight = p == null ? null : p.meter().inFlight();
        in = in.withQueue(slots, slotsSource, inFlight, s.running(), s.waiting());

        ProbeResult r = w.recentInteractiveProbe(now);
        Double ttft = null;
        if (r != null && r.success()) {
            ttft = r.ttftSeconds();
        } else if (r != null && ProbeErrors.FIRST_TOKEN_TIMEOUT.equals(r.errorType())) {
            ttft = Double.POSITIVE_INFINITY;
        }
        in = in.withLatency(s.queueWaitSeconds(), s.queueWaitSource(), ttft, baseline(name));

        HostSampling hs = host.get();
        HostSnapshot latest = hs == null ? null : hs.latest();
        Duration hostEvery = hs == null ? Duration.ofSeconds(15) : hs.interval();
        if (latest != null && latest != HostSnapshot.EMPTY && !latest.at().plus(hostEvery.multipliedBy(STALE_AFTER)).isBefore(now)) {
            HostSnapshot prev = hs.previousOf(latest);
            Double swapGrowth = prev == null || latest.swapUsed() == null || prev.swapUsed() == null ? null
                    : latest.swapUsed() - prev.swapUsed();
            in = in.withHost(latest.pressureLevel(), swapGrowth, gpuShare(name), latest.thermalLevel(), latest.cpuSpeedLimit());
        }
        return in.withRefresh(w.config().healthInterval(), p != null ? Duration.ZERO : signalEvery, hostEvery);
    }

    /**
     * up, loading and down as the health check says; needs_key and no check yet are unknown; an engine never
     * reached is down; a check older than three health intervals is unknown.
     */
    static EngineState state(EngineWatch w, EngineHealth h, Instant now) {
        String st = w.state();
        if (st == null || h == null || h.checkedAt() == null
                || h.checkedAt().plus(w.config().healthInterval().multipliedBy(STALE_AFTER)).isBefore(now)) {
            return EngineState.UNKNOWN;
        }
        return switch (st) {
            case "up" -> EngineState.UP;
            case "loading" -> EngineState.LOADING;
            case "down", "never_reachable" -> EngineState.DOWN;
            default -> EngineState.UNKNOWN;
        };
    }

    /** The lowest single-request end-to-end p95 kept for the engine (any model and scenario), or null. */
    private Double baseline(String engine) {
        BaselineStore b = baselines.get();
        if (b == null) {
            return null;
        }
        Double best = null;
        for (BaselineStore.Entry e : b.all()) {
            if (e.engine().equals(engine) && (best == null || e.p95Seconds() < best)) {
                best = e.p95Seconds();
            }
        }
        return best;
    }

    /** The fullest loaded model's GPU working-set share as last published (macOS only), or null. */
    private Double gpuShare(String engine) {
        Double max = null;
        for (Point pt : hub.snapshot().of(EngineMetrics.GPU_MEMORY_SHARE)) {
            if (engine.equals(pt.attributes().get(AttrKeys.ENGINE)) && (max == null || pt.value() > max)) {
                max = pt.value();
            }
        }
        return max;
    }
}
