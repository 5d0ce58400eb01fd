package io.tailwatch.daemon.signals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.config.SignalSourceSetting;
import io.tailwatch.core.host.EngineProcesses;
import io.tailwatch.core.host.EngineRunners;
import io.tailwatch.core.http.ProbeErrors;
import io.tailwatch.core.probe.EngineApi;
import io.tailwatch.core.probe.InputRange;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Ollama's busy figures, which its server does not publish (no /metrics): the {@code /slots} of each of its runner
 * processes. {@code ollama serve} runs one llama.cpp {@code llama-server} child per loaded model on a loopback port
 * of its choosing, with {@code -np} slots and {@code /slots} on; the runners are found in the engine's process tree
 * and their ports read from their command lines ({@link EngineRunners}). The running figure is the busy slots
 * summed over the runners, and the slot count (details {@code slots_total}) their slots summed, which the readiness
 * verdict takes as the engine's capacity.
 *
 * <p>Every read is bounded like the other sources' (the probes' transport: deadline, body bound, JSON bounds); a
 * runner that cannot be read makes the whole reading a classified failure, since a sum without it would be an
 * undercount. With no runner (no model loaded) the figures are absent: the server may be loading one for a waiting
 * request, and nothing says how many slots it will have. The runners are looked up again every
 * {@value #REDISCOVER_EVERY} reads, while none is known, and after a runner refused the connection (it went away).
 * An MLX runner ({@code ollama runner --mlx-engine}) has no {@code /slots} (it answers 404): the runner is not broken,
 * but a sum without it would be an undercount, so the figures are absent (unknown) and the details name the runners
 * without {@code /slots}; the reading does not fail, so detection does not start over at every read.
 */
public final class OllamaRunnerSlotsSource implements EngineSignalSource {
    public static final String KIND = LlamaCppSlotsSource.KIND;
    /** What the readiness verdict names as the source of the slot count. */
    public static final String SLOTS_SOURCE = "Ollama runners' /slots";
    static final int REDISCOVER_EVERY = 10;
    /** Bound on the slot count taken from the runners (Ollama's OLLAMA_NUM_PARALLEL times its loaded models). */
    static final long MAX_SLOTS = 4096;
    private static final String SOURCE = "ollama_runners";

    /** Finds the engine's runners (the host's process table in the daemon; a fixed list in tests). */
    public interface RunnerFinder {
        List<EngineRunners.Runner> find() throws IOException;
    }

    private final RunnerFinder finder;
    private final Duration connectTimeout;
    private List<EngineRunners.Runner> runners;
    private int readsSinceDiscovery;

    public OllamaRunnerSlotsSource(RunnerFinder finder, Duration connectTimeout) {
        this.finder = finder;
        this.connectTimeout = connectTimeout;
    }

    /** True for an Ollama engine on this host whose signals are detected (auto): its runners can be found. */
    public static boolean applies(EngineConfig e) {
        return EngineApi.OLLAMA.wireName().equals(e.api()) && e.signals().source() == SignalSourceSetting.AUTO
                && EngineProcesses.local(e);
    }

    /** The runners' slots, with the header-time estimate for the queue wait the slots do not tell. */
    public static SignalDetector.Detection detection(EngineConfig e, HeaderTimeEstimate estimate) {
        long self = ProcessHandle.current().pid();
        RunnerFinder f = () -> EngineRunners.find(io.tailwatch.core.host.platform.HostSources.processTable().get(), e, self);
        return new SignalDetector.Detection(true, List.of(new OllamaRunnerSlotsSource(f, e.connectTimeout()), estimate),
                List.of("llamacpp"), "Ollama: the /slots of its runner processes (llama-server children); "
                + "queue wait is estimated from probe header time");
    }

    @Override
    public String kind() {
        return KIND;
    }

    @Override
    public String describe() {
        return "GET /slots of each runner process";
    }

    @Override
    public EngineSignals read(Duration deadline) throws SignalFailure {
        long end = System.nanoTime() + deadline.toNanos();
        if (runners == null || runners.isEmpty() || readsSinceDiscovery >= REDISCOVER_EVERY) {
            try {
                runners = List.copyOf(finder.find());
            } catch (IOException | RuntimeException e) {
                runners = null;
                throw new SignalFailure(ProbeErrors.OTHER, "process table", "cannot list the runner processes: " + e.getMessage());
            }
            readsSinceDiscovery = 0;
        }
        readsSinceDiscovery++;
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("runners_found", runners.size());
        if (runners.isEmpty()) {
            return new EngineSignals(null, null, null, null, null, details);
        }
        long busy = 0;
        long slots = 0;
        List<Map<String, Object>> listed = new ArrayList<>();
        List<Integer> withoutSlots = new ArrayList<>();
        for (EngineRunners.Runner r : runners) {
            long left = end - System.nanoTime();
            String path = "runner " + r.port() + " " + LlamaCppSlotsSource.PATH;
            if (left <= 0) {
                throw new SignalFailure(SignalFailure.TIMEOUT, path, "no time left within " + deadline.toMillis() + " ms");
            }
            JsonNode n;
            EngineSignals one;
            try {
                EngineEndpoint ep = new EngineEndpoint(URI.create("http://127.0.0.1:" + r.port()), null, connectTimeout);
                n = ep.getJson(LlamaCppSlotsSource.PATH, Duration.ofNanos(left));
                one = LlamaCppSlotsSource.parse(n);
            } catch (SignalFailure f) {
                if (ProbeErrors.http(404).equals(f.errorType())) {
                    withoutSlots.add(r.port());
                    continue;
                }
                if (ProbeErrors.CONNECT_REFUSED.equals(f.errorType())) {
                    readsSinceDiscovery = REDISCOVER_EVERY; // the runner went away: look again next time
                }
                throw new SignalFailure(f.errorType(), path, f.getMessage());
            }
            long processing = one.running() == null ? 0 : one.running().longValue();
            busy += processing;
            slots += n.size();
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("pid", r.pid());
            x.put("port", r.port());
            x.put("slots", n.size());
            x.put("processing", processing);
            x.put("declared_slots", r.declaredSlots());
            listed.add(x);
        }
        if (!withoutSlots.isEmpty()) {
            // An MLX runner beside (or instead of) llama.cpp ones: what they run is not known, so neither is the sum.
            details.put("runners_without_slots", withoutSlots);
            details.put("runners", listed);
            return new EngineSignals(null, null, null, null, null, details);
        }
        Long total = InputRange.count(SOURCE, "slots_total", slots, MAX_SLOTS);
        if (total == null) {
            throw new SignalFailure(SignalFailure.MALFORMED, "runners /slots", "more than " + MAX_SLOTS + " slots in all");
        }
        details.put("slots_total", total);
        details.put("slots_processing", busy);
        details.put("slots_source", SLOTS_SOURCE);
        details.put("runners", listed);
        return new EngineSignals((double) busy, null, null, null, null, details);
    }
}
