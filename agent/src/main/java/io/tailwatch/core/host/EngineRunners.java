package io.tailwatch.core.host;

import io.tailwatch.core.config.EngineConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runner processes of an engine that serves through children, as Ollama does: {@code ollama serve} starts a
 * llama.cpp {@code llama-server} per loaded GGML model ({@code --model PATH --port PORT --host 127.0.0.1 ... -np N})
 * and, on Macs, {@code ollama runner --mlx-engine --model NAME --port PORT} for safetensors models. A runner is a
 * descendant of the engine's process (found as {@link EngineProcesses} finds it: the process listening on the
 * engine's port, else by name) whose arguments carry {@code --port N}; its loopback port is read from there, and
 * its slot count from {@code -np}/{@code --parallel} when given. The engine's own process is never a runner.
 */
public final class EngineRunners {
    /** Bounds the runners read per engine (Ollama loads OLLAMA_MAX_LOADED_MODELS, 3 per GPU by default). */
    public static final int MAX_RUNNERS = 16;

    private EngineRunners() {
    }

    /**
     * One runner: its process, the loopback port it serves on, and the slots its command line declares (null when
     * it declares none).
     */
    public record Runner(int pid, int port, Integer declaredSlots) {
    }

    /**
     * The runners of {@code engine} in {@code table}, at most {@link #MAX_RUNNERS}, by pid. Empty when the engine's
     * process is not found (not local, or not running) or has no runner child (no model loaded).
     */
    public static List<Runner> find(ProcessTable table, EngineConfig engine, long self) throws IOException {
        List<ProcessTable.ProcessInfo> all = table.processes();
        Map<Integer, Set<Integer>> listening = EngineProcesses.local(engine) ? table.listening(Set.of(engine.port())) : Map.of();
        Set<Integer> tree = EngineProcesses.find(List.of(engine), all, listening, self).getOrDefault(engine.name(), Set.of());
        if (tree.isEmpty()) {
            return List.of();
        }
        Map<Integer, ProcessTable.ProcessInfo> byPid = new HashMap<>();
        for (ProcessTable.ProcessInfo p : all) {
            byPid.put(p.pid(), p);
        }
        List<Runner> out = new ArrayList<>();
        for (int pid : tree) {
            ProcessTable.ProcessInfo p = byPid.get(pid);
            if (p == null || !tree.contains(p.ppid()) || out.size() >= MAX_RUNNERS) {
                continue; // a root of the tree is the engine itself, not a runner
            }
            List<String> args = p.args();
            if (args.isEmpty()) {
                // The cycle's byte budget ran out before this process: read its arguments alone.
                List<String> own = table.arguments(pid);
                args = own == null ? List.of() : own;
            }
            Integer port = flag(args, "--port");
            if (port != null && port >= 1 && port <= 65_535 && port != engine.port()) {
                Integer slots = flag(args, "-np");
                if (slots == null) {
                    slots = flag(args, "--parallel");
                }
                out.add(new Runner(pid, port, slots != null && slots >= 1 && slots <= 1024 ? slots : null));
            }
        }
        out.sort(java.util.Comparator.comparingInt(Runner::pid));
        return out;
    }

    /**
     * The arguments of the engine's own server process: the one process (not this one) listening on the engine's
     * loopback port, bounded as {@link ProcessTable} reads them (at most {@link ProcessTable#MAX_ARGS}). Null when
     * the engine is not local, or no single process is found listening, or the OS does not show its arguments.
     */
    public static List<String> serverArguments(ProcessTable table, EngineConfig engine, long self) throws IOException {
        if (!EngineProcesses.local(engine)) {
            return null;
        }
        Set<Integer> pids = new java.util.HashSet<>(table.listening(Set.of(engine.port())).getOrDefault(engine.port(), Set.of()));
        pids.remove((int) self);
        if (pids.size() != 1) {
            return null;
        }
        int pid = pids.iterator().next();
        List<String> args = table.arguments(pid);
        if (args == null || args.isEmpty()) {
            for (ProcessTable.ProcessInfo p : table.processes()) {
                if (p.pid() == pid) {
                    args = p.args();
                }
            }
        }
        return args == null || args.isEmpty() ? null : List.copyOf(args);
    }

    /** The integer after {@code name} ({@code name N} or {@code name=N}), or null when absent or not a number. */
    public static Integer flag(List<String> args, String name) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String v = null;
            if (a.equals(name) && i + 1 < args.size()) {
                v = args.get(i + 1);
            } else if (a.startsWith(name + "=")) {
                v = a.substring(name.length() + 1);
            }
            if (v != null && v.length() <= 9 && v.matches("[0-9]+")) {
                return Integer.parseInt(v);
            }
        }
        return null;
    }
}
