package io.tailwatch.core.host.linux;

import java.nio.file.Path;
import java.util.Set;

/**
 * Run in a JVM of its own with a small heap: finds the processes listening on port ARGS[1] in the procfs at
 * ARGS[0] and prints them; running out of heap ends the JVM with an error.
 */
public final class ListeningInSmallHeap {
    private ListeningInSmallHeap() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[1]);
        System.out.println("listening=" + new LinuxProcessTable(Path.of(args[0])).listening(Set.of(port)).get(port));
    }
}
