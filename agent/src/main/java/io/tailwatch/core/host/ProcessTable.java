package io.tailwatch.core.host;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operating system's process list, as the engine-process sampler needs it. One implementation
 * per OS (procfs on Linux, libproc on macOS); the matching logic is OS-neutral.
 */
public interface ProcessTable {
    /**
     * Matching reads the executable, then arguments 0 and 1 and a {@code -m module} among the first
     * 16 ({@link EngineProcesses}): so at most 16 arguments and 4 KiB of each command line are read,
     * and 256 KiB over all processes in one cycle. A process with 2 MB of arguments costs 4 KiB.
     */
    int MAX_ARGS = 16;
    int MAX_ARG_BYTES = 4096;
    long MAX_ARG_BYTES_PER_CYCLE = 256 * 1024;

    /**
     * Whether the last of {@code args}, a command line as this table reads it, may have been cut short: it was
     * read up to {@link #MAX_ARG_BYTES} (each argument with its separator), so a value there may be a prefix.
     */
    static boolean lastArgumentMayBeCut(List<String> args) {
        long n = 0;
        for (String a : args) {
            n += a.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1L;
        }
        return n >= MAX_ARG_BYTES;
    }

    /** Whether arguments may be missing after {@code args}: either bound, count or bytes, was reached. */
    static boolean mayBeCut(List<String> args) {
        return args.size() >= MAX_ARGS || lastArgumentMayBeCut(args);
    }

    /** Splits NUL-separated arguments (a trailing part without NUL counts), at most {@link #MAX_ARGS}. */
    static List<String> splitArgs(byte[] b, int length) {
        List<String> args = new java.util.ArrayList<>();
        int n = Math.min(length, b.length);
        int start = 0;
        for (int i = 0; i < n && args.size() < MAX_ARGS; i++) {
            if (b[i] == 0) {
                args.add(new String(b, start, i - start, java.nio.charset.StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start < n && args.size() < MAX_ARGS) {
            args.add(new String(b, start, n - start, java.nio.charset.StandardCharsets.UTF_8));
        }
        return args;
    }

    /**
     * The arguments of one process, bounded as in {@link #processes()} ({@link #MAX_ARGS} arguments, {@link #MAX_ARG_BYTES}
     * bytes), for a process whose arguments that cycle's byte budget left out; null where the OS offers no cheaper way
     * than the whole table, or the process is gone.
     */
    default List<String> arguments(int pid) {
        return null;
    }

    /** Every process this user can see. Processes that vanish while being read are left out. */
    List<ProcessInfo> processes() throws IOException;

    /** For each port, the processes holding a TCP socket listening on it (absent or empty: none found). */
    Map<Integer, Set<Integer>> listening(Set<Integer> ports) throws IOException;

    /** Memory of one process, or null when it is gone or cannot be read. */
    ProcessMemory memory(int pid) throws IOException;

    /** {@code args} may be empty where the OS does not show another user's arguments. */
    record ProcessInfo(int pid, int ppid, String name, String executable, List<String> args) {
        public ProcessInfo {
            name = name == null ? "" : name;
            executable = executable == null ? "" : executable;
            args = args == null ? List.of() : List.copyOf(args);
        }
    }

    /**
     * Whether {@link ProcessMemory#pss} is a figure this OS has (Linux: /proc/PID/smaps_rollup), so a
     * process whose PSS is null had it unreadable rather than nonexistent.
     */
    default boolean hasProportionalSets() {
        return false;
    }

    /**
     * {@code footprint} is null where the OS has no such figure (Linux); {@code pss} (proportional set
     * size: each shared page divided among the processes mapping it) is null where the OS has none or
     * this process's could not be read.
     */
    record ProcessMemory(long rss, Long footprint, Long pss) {
        public ProcessMemory(long rss, Long footprint) {
            this(rss, footprint, null);
        }
    }
}
