package io.tailwatch.core.host;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.MemorySource;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Memory of each configured engine's processes (the process found by port or name plus its
 * descendants, summed): resident set size everywhere, physical footprint on macOS, proportional set
 * size on Linux (the RSS sum, labelled {@code rss}, when any process's PSS cannot be read). Finding the
 * processes walks the whole process table, so it is done on the first run, every
 * {@code rediscoverEvery} runs, and whenever a known process has gone; reading memory each run is
 * a few calls per process. An engine with no process exports nothing (it is not running). Engines
 * found after the start ({@code engines: auto}) are {@link #add added} and found the same way, by their
 * listening port first, on the next run.
 */
public final class EngineProcessSampler implements NativeSampler {
    private static final Logger LOG = LoggerFactory.getLogger(EngineProcessSampler.class);
    /** Bounds the engines one sampler follows (the config allows 32; discovery adds at most one per port). */
    static final int MAX_ENGINES = 64;
    private final List<EngineConfig> engines;
    private final java.util.Queue<EngineConfig> pending = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final Lazy<ProcessTable> table;
    private final int rediscoverEvery;
    private final String probeId;
    private final long self = ProcessHandle.current().pid();
    private Map<String, Set<Integer>> pids = Map.of();
    private int runsSinceDiscovery = Integer.MAX_VALUE;

    public EngineProcessSampler(List<EngineConfig> engines, Lazy<ProcessTable> table, int rediscoverEvery) {
        this(engines, table, rediscoverEvery, null);
    }

    /** {@code probeId}: the native probe of the process table (null where reading it is not native, procfs). */
    public EngineProcessSampler(List<EngineConfig> engines, Lazy<ProcessTable> table, int rediscoverEvery, String probeId) {
        this.probeId = probeId;
        this.engines = new ArrayList<>(engines);
        this.table = table;
        this.rediscoverEvery = Math.max(1, rediscoverEvery);
    }

    @Override
    public String name() {
        return "engine_processes";
    }

    /**
     * Follows one more engine (a discovered one): its processes are looked for on the next run (an engine of a
     * name already followed, or one past {@link #MAX_ENGINES}, is then left out). False when too many wait.
     */
    public boolean add(EngineConfig engine) {
        // Not under the sampler's lock: a run stuck in a read must not hold up the caller (discovery).
        if (pending.size() >= MAX_ENGINES) {
            return false;
        }
        pending.add(engine);
        return true;
    }

    /** Takes in the engines added since the last run; true when there were any. */
    private boolean takePending() {
        boolean any = false;
        for (EngineConfig e; (e = pending.poll()) != null; ) {
            String name = e.name();
            if (engines.size() < MAX_ENGINES && engines.stream().noneMatch(x -> x.name().equals(name))) {
                engines.add(e);
                any = true;
            }
        }
        return any;
    }

    /** Null on Linux: procfs needs no self-check. */
    @Override
    public String probeId() {
        return probeId;
    }

    /** The processes last found for an engine (empty when none). */
    public synchronized Set<Integer> pidsOf(String engine) {
        return pids.getOrDefault(engine, Set.of());
    }

    /** The processes last found for each engine that has any (a copy). */
    public synchronized Map<String, Set<Integer>> pids() {
        return Map.copyOf(pids);
    }

    @Override
    public synchronized List<Point> sample() throws IOException {
        boolean added = takePending();
        if (engines.isEmpty()) {
            return List.of();
        }
        ProcessTable t = table.get();
        if (added || runsSinceDiscovery >= rediscoverEvery) {
            discover(t);
        }
        runsSinceDiscovery++;
        List<Point> out = new ArrayList<>();
        boolean lost = false;
        IOException failed = null;
        for (EngineConfig e : engines) {
            Set<Integer> set = pids.get(e.name());
            if (set == null) {
                continue;
            }
            try {
                lost |= sample(t, e, set, out);
            } catch (IOException x) {
                // One engine's unreadable process leaves that engine's series out of this sample, not its siblings'.
                if (failed == null) {
                    failed = x;
                } else {
                    failed.addSuppressed(x);
                }
            }
        }
        if (lost || failed != null) {
            runsSinceDiscovery = rediscoverEvery;
        }
        if (failed != null) {
            if (out.isEmpty()) {
                throw failed;
            }
            LOG.warn("engine process memory: {} (the other engines' figures stand)",
                    io.tailwatch.core.text.SafeText.escape(String.valueOf(failed.getMessage()), 300));
        }
        return out;
    }

    /** Adds one engine's memory series to {@code out}; true when one of its processes was gone. */
    private static boolean sample(ProcessTable t, EngineConfig e, Set<Integer> set, List<Point> out) throws IOException {
        boolean lost = false;
        long rss = 0;
        long footprint = 0;
        long pss = 0;
        boolean haveFootprint = true;
        boolean havePss = true;
        int read = 0;
        for (int pid : set) {
            ProcessTable.ProcessMemory m = t.memory(pid);
            if (m == null) {
                lost = true;
                continue;
            }
            read++;
            rss += m.rss();
            if (m.footprint() == null) {
                haveFootprint = false;
            } else {
                footprint += m.footprint();
            }
            if (m.pss() == null) {
                havePss = false;
            } else {
                pss += m.pss();
            }
        }
        if (read == 0) {
            return lost;
        }
        out.add(Point.of(HostMetrics.PROCESS_RSS, rss, AttrKeys.ENGINE, e.name()));
        if (haveFootprint) {
            out.add(Point.of(HostMetrics.PROCESS_FOOTPRINT, footprint, AttrKeys.ENGINE, e.name()));
        }
        if (t.hasProportionalSets()) {
            out.add(havePss ? Point.of(HostMetrics.PROCESS_PSS, pss, MemorySource.PSS, AttrKeys.ENGINE, e.name())
                    : Point.of(HostMetrics.PROCESS_PSS, rss, MemorySource.RSS, AttrKeys.ENGINE, e.name()));
        }
        return lost;
    }

    private void discover(ProcessTable t) throws IOException {
        Set<Integer> ports = new HashSet<>();
        for (EngineConfig e : engines) {
            if (EngineProcesses.local(e)) {
                ports.add(e.port());
            }
        }
        Map<Integer, Set<Integer>> listening = ports.isEmpty() ? Map.of() : t.listening(ports);
        pids = new HashMap<>(EngineProcesses.find(engines, t.processes(), listening, self));
        runsSinceDiscovery = 0;
    }
}
