package io.tailwatch.core.host;

import io.tailwatch.core.config.EngineConfig;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds the processes of one engine, OS-neutrally: the process listening on the engine's port when
 * the engine runs on this host, else processes whose executable or arguments carry one of the
 * configured names; then their descendants (Ollama keeps the model in a child runner process).
 */
public final class EngineProcesses {
    /** Bounds the series work per engine. */
    public static final int MAX_PIDS_PER_ENGINE = 64;
    private static final int MAX_ARGS_EXAMINED = 16;

    private EngineProcesses() {
    }

    /** True when the engine URL names this host, so its port can identify the process. */
    public static boolean local(EngineConfig e) {
        String h = e.url().getHost();
        if (h == null) {
            return false;
        }
        h = h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
        if (h.equalsIgnoreCase("localhost") || h.equals("0.0.0.0") || h.equals("::")) {
            return true;
        }
        if (!h.matches("[0-9.:a-fA-F]+")) {
            return false;
        }
        try {
            return InetAddress.getByName(h).isLoopbackAddress();
        } catch (java.net.UnknownHostException ex) {
            return false;
        }
    }

    /**
     * Whether a process is one of {@code names}: its executable's file name or process name equals a
     * name; or a Python interpreter runs it as a script (argument 1's file name) or as a module
     * ({@code -m name} or {@code -m name.sub}, so mlx_lm matches {@code python -m mlx_lm.server}).
     */
    public static boolean matches(ProcessTable.ProcessInfo p, List<String> names) {
        if (names.isEmpty()) {
            return false;
        }
        String exe = baseName(p.executable());
        List<String> args = p.args();
        for (String n : names) {
            if (n.equals(exe) || n.equals(p.name())) {
                return true;
            }
            if (!args.isEmpty() && n.equals(baseName(args.get(0)))) {
                return true;
            }
            if (args.size() > 1 && interpreter(p) && n.equals(baseName(args.get(1)))) {
                return true;
            }
            for (int i = 1; i < Math.min(args.size(), MAX_ARGS_EXAMINED); i++) {
                if (args.get(i - 1).equals("-m")) {
                    String module = args.get(i);
                    if (module.equals(n) || module.startsWith(n + ".")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** A Python interpreter runs the script named by argument 1 (mlx_lm.server, vllm entry points). */
    static boolean interpreter(ProcessTable.ProcessInfo p) {
        String exe = baseName(p.executable());
        String arg0 = p.args().isEmpty() ? "" : baseName(p.args().get(0));
        return exe.startsWith("python") || exe.equals("Python") || arg0.startsWith("python");
    }

    static String baseName(String path) {
        if (path == null || path.isEmpty()) {
            return "";
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return p.substring(p.lastIndexOf('/') + 1);
    }

    /**
     * The pids of each engine. {@code listening} is what {@link ProcessTable#listening} found for the
     * local engines' ports; {@code self} (this agent) is never counted.
     */
    public static Map<String, Set<Integer>> find(List<EngineConfig> engines, List<ProcessTable.ProcessInfo> processes,
                                                 Map<Integer, Set<Integer>> listening, long self) {
        Map<Integer, List<Integer>> children = new HashMap<>();
        for (ProcessTable.ProcessInfo p : processes) {
            children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p.pid());
        }
        Map<String, Set<Integer>> out = new HashMap<>();
        for (EngineConfig e : engines) {
            Set<Integer> roots = new LinkedHashSet<>();
            if (local(e)) {
                roots.addAll(listening.getOrDefault(e.port(), Set.of()));
            }
            if (roots.isEmpty()) {
                for (ProcessTable.ProcessInfo p : processes) {
                    if (matches(p, e.processNames())) {
                        roots.add(p.pid());
                    }
                }
            }
            roots.remove((int) self);
            Set<Integer> all = new LinkedHashSet<>();
            List<Integer> queue = new ArrayList<>(roots);
            while (!queue.isEmpty() && all.size() < MAX_PIDS_PER_ENGINE) {
                int pid = queue.remove(0);
                if (pid == self || !all.add(pid)) {
                    continue;
                }
                queue.addAll(children.getOrDefault(pid, List.of()));
            }
            if (!all.isEmpty()) {
                out.put(e.name(), all);
            }
        }
        return out;
    }
}
