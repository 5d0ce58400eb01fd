package io.tailwatch.host;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operating system's process list, as the engine-process sampler needs it. One implementation
 * per OS (procfs on Linux, libproc on macOS); the matching logic is OS-neutral.
 */
public interface ProcessTable {
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

    /** {@code footprint} is null where the OS has no such figure (Linux). */
    record ProcessMemory(long rss, Long footprint) {
    }
}
