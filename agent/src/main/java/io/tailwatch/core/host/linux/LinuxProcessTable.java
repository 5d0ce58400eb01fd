package io.tailwatch.core.host.linux;

import io.tailwatch.core.host.ProcessTable;
import io.tailwatch.core.text.SafeText;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Processes from procfs. Listening sockets come from net/tcp and net/tcp6 (state 0A = LISTEN, the
 * socket inode in column 10), matched to processes through the {@code socket:[inode]} links under
 * /proc/PID/fd. Processes of other users whose fds cannot be read are skipped; memory is VmRSS
 * from /proc/PID/status and Pss from /proc/PID/smaps_rollup (at most every 30 s per process).
 */
public final class LinuxProcessTable implements ProcessTable {
    private static final Logger LOG = LoggerFactory.getLogger(LinuxProcessTable.class);
    private static final String LISTEN = "0A";
    /**
     * smaps_rollup makes the kernel walk the process's page tables (measured here: 26-38 ms of CPU for a
     * 550-900 MiB resident JVM), so each process's PSS is read at most once per this many nanoseconds
     * and reused in between; RSS is read every time.
     */
    static final long PSS_MAX_AGE_NANOS = 30_000_000_000L;
    /** Bounds the remembered PSS figures (engines x processes is at most 64 x 64). */
    static final int MAX_REMEMBERED = 4096;
    private final Path procfs;
    private final java.util.function.LongSupplier nanos;
    private final Map<Integer, long[]> pssCache = new HashMap<>();
    private long lastCycleBytes;

    public LinuxProcessTable(Path procfs) {
        this(procfs, System::nanoTime);
    }

    LinuxProcessTable(Path procfs, java.util.function.LongSupplier nanos) {
        this.procfs = procfs;
        this.nanos = nanos;
    }

    /** Command-line bytes read by the last {@link #processes()} (tests). */
    public synchronized long lastCycleBytes() {
        return lastCycleBytes;
    }

    /**
     * Every process with its name, executable and a bounded prefix of its arguments: at most
     * {@link ProcessTable#MAX_ARG_BYTES} bytes of each command line and {@link ProcessTable#MAX_ARGS}
     * arguments, and {@link ProcessTable#MAX_ARG_BYTES_PER_CYCLE} bytes over all processes (once less than one
     * line's bound is left, processes keep their name and executable, which is what matching reads first: a
     * command line is read whole or up to its own bound, never cut shorter by the budget).
     */
    @Override
    public synchronized List<ProcessInfo> processes() throws IOException {
        List<ProcessInfo> out = new ArrayList<>();
        long budget = MAX_ARG_BYTES_PER_CYCLE;
        for (int pid : pids()) {
            Path dir = procfs.resolve(Integer.toString(pid));
            try {
                String stat = ProcFiles.read(dir.resolve("stat"));
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                if (open < 0 || close < open) {
                    continue;
                }
                String name = stat.substring(open + 1, close);
                String[] rest = stat.substring(close + 2).split(" ");
                int ppid = rest.length > 1 ? Integer.parseInt(rest[1]) : 0;
                // Only with a whole line's bound left: a line cut by the cycle's budget could end inside an argument.
                byte[] cmdline = budget >= MAX_ARG_BYTES ? prefix(dir.resolve("cmdline"), MAX_ARG_BYTES) : new byte[0];
                budget -= cmdline.length;
                out.add(new ProcessInfo(pid, ppid, name, exe(dir), ProcessTable.splitArgs(cmdline, cmdline.length)));
            } catch (IOException | RuntimeException e) {
                // Gone meanwhile, or unreadable: not one of ours to report.
            }
        }
        lastCycleBytes = MAX_ARG_BYTES_PER_CYCLE - budget;
        return out;
    }

    @Override
    public List<String> arguments(int pid) {
        byte[] cmdline = prefix(procfs.resolve(Integer.toString(pid)).resolve("cmdline"), MAX_ARG_BYTES);
        return cmdline.length == 0 ? null : ProcessTable.splitArgs(cmdline, cmdline.length);
    }

    /** At most {@code max} bytes from the start of a file (the kernel produces /proc/PID/cmdline as it is read). */
    static byte[] prefix(Path file, int max) {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(max);
        } catch (IOException e) {
            return new byte[0];
        }
    }

    private List<Integer> pids() throws IOException {
        List<Integer> pids = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(procfs, "[0-9]*")) {
            for (Path p : ds) {
                try {
                    pids.add(Integer.parseInt(p.getFileName().toString()));
                } catch (NumberFormatException e) {
                    // not a process directory
                }
            }
        }
        return pids;
    }

    private static String exe(Path dir) {
        try {
            return Files.readSymbolicLink(dir.resolve("exe")).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return "";
        }
    }

    @Override
    public Map<Integer, Set<Integer>> listening(Set<Integer> ports) throws IOException {
        Map<Long, Integer> inodes = new HashMap<>();
        for (String file : List.of("tcp", "tcp6")) {
            Path p = procfs.resolve("net").resolve(file);
            if (Files.isReadable(p)) {
                // Read a line at a time: with many connections (a load test's TIME_WAIT sockets) the table runs to
                // tens of megabytes, and read whole, once per engine, it ran the 24 MiB heap out.
                try (java.io.BufferedReader in = Files.newBufferedReader(p, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                    listeningInodes(p, in, ports, inodes);
                }
            }
        }
        Map<Integer, Set<Integer>> out = new HashMap<>();
        if (inodes.isEmpty()) {
            return out;
        }
        for (int pid : pids()) {
            Path fd = procfs.resolve(Integer.toString(pid)).resolve("fd");
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(fd)) {
                for (Path link : ds) {
                    Integer port = socketPort(link, inodes);
                    if (port != null) {
                        out.computeIfAbsent(port, k -> new HashSet<>()).add(pid);
                    }
                }
            } catch (IOException | SecurityException e) {
                // another user's process, or gone
            }
        }
        return out;
    }

    private static Integer socketPort(Path link, Map<Long, Integer> inodes) {
        try {
            String target = Files.readSymbolicLink(link).toString();
            if (target.startsWith("socket:[") && target.endsWith("]")) {
                return inodes.get(Long.parseLong(target.substring(8, target.length() - 1)));
            }
        } catch (IOException | RuntimeException e) {
            // closed meanwhile
        }
        return null;
    }

    /**
     * Parses one net/tcp{,6} table, a line at a time: inode -> port for listening sockets on the wanted ports. A
     * line is split into fields only when its state (the fourth field) is LISTEN, so a table of many connections
     * costs one line of memory.
     */
    static void listeningInodes(Path file, java.io.BufferedReader in, Set<Integer> ports, Map<Long, Integer> out)
            throws IOException {
        in.readLine(); // the header
        int[] at = new int[20];
        String line;
        for (int number = 2; (line = in.readLine()) != null; number++) {
            int fields = fields(line, at);
            if (fields == 0) {
                continue;
            }
            if (fields < 10) {
                throw new IOException(file + " line " + number + ": expected at least 10 fields, got " + fields);
            }
            if (!line.regionMatches(at[6], LISTEN, 0, LISTEN.length()) || at[7] - at[6] != LISTEN.length()) {
                continue;
            }
            String local = line.substring(at[2], at[3]);
            int colon = local.lastIndexOf(':');
            try {
                int port = Integer.parseInt(local.substring(colon + 1), 16);
                long inode = Long.parseLong(line.substring(at[18], at[19]));
                if (ports.contains(port) && inode != 0) {
                    out.put(inode, port);
                }
            } catch (NumberFormatException e) {
                throw new IOException(file + " line " + number + ": bad address or inode in '" + ProcFiles.clip(line.strip()) + "'");
            }
        }
    }

    /** Start and end of the first ten whitespace-separated fields of {@code line} in {@code at}; how many there are. */
    private static int fields(String line, int[] at) {
        int n = 0;
        int i = 0;
        int len = line.length();
        while (n < 10) {
            while (i < len && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i == len) {
                break;
            }
            at[2 * n] = i;
            while (i < len && !Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            at[2 * n + 1] = i;
            n++;
        }
        return n;
    }

    @Override
    public boolean hasProportionalSets() {
        return true;
    }

    /**
     * VmRSS from /proc/PID/status and, where the kernel has it (4.14+) and this user may read it (the
     * process's owner or root), the Pss line of /proc/PID/smaps_rollup; an unreadable smaps_rollup
     * leaves {@code pss} null and the caller falls back to RSS. So does one that cannot be parsed (too
     * large, or a Pss line without a number), which is logged when it is read (at most every 30 s per
     * process): one process's odd file never costs the other processes or engines their memory.
     */
    @Override
    public ProcessMemory memory(int pid) throws IOException {
        Path dir = procfs.resolve(Integer.toString(pid));
        Path status = dir.resolve("status");
        String text;
        try {
            text = ProcFiles.read(status);
        } catch (NoSuchFileException e) {
            return null;
        }
        Long rss = kbLine(status, text, "VmRSS:");
        if (rss == null) {
            // Kernel threads and zombies have no VmRSS.
            return null;
        }
        return new ProcessMemory(rss, null, cachedPss(pid, dir.resolve("smaps_rollup")));
    }

    /** {now, pss or -1 when unreadable} per pid, reread after {@link #PSS_MAX_AGE_NANOS}. */
    private synchronized Long cachedPss(int pid, Path rollup) throws IOException {
        long now = nanos.getAsLong();
        long[] c = pssCache.get(pid);
        if (c != null && now - c[0] < PSS_MAX_AGE_NANOS) {
            return c[1] < 0 ? null : c[1];
        }
        Long v;
        try {
            v = pss(rollup);
        } catch (IOException e) {
            LOG.warn("pss unreadable, RSS stands in for process {}: {}", pid, SafeText.escape(e.getMessage(), 300));
            v = null;
        }
        if (pssCache.size() >= MAX_REMEMBERED) {
            pssCache.values().removeIf(e -> now - e[0] >= PSS_MAX_AGE_NANOS);
            if (pssCache.size() >= MAX_REMEMBERED) {
                pssCache.clear();
            }
        }
        pssCache.put(pid, new long[] {now, v == null ? -1 : v});
        return v;
    }

    /** The Pss of a smaps_rollup file in bytes, or null when it cannot be read or has no Pss line. */
    static Long pss(Path rollup) throws IOException {
        byte[] bytes;
        try (java.io.InputStream in = Files.newInputStream(rollup)) {
            bytes = in.readNBytes(MAX_ROLLUP_BYTES + 1);
        } catch (IOException e) {
            // Gone, another user's (EACCES), a kernel before 4.14: unreadable, so RSS stands in.
            return null;
        }
        if (bytes.length > MAX_ROLLUP_BYTES) {
            throw new IOException(rollup + ": larger than " + MAX_ROLLUP_BYTES + " bytes");
        }
        return kbLine(rollup, new String(bytes, java.nio.charset.StandardCharsets.UTF_8), "Pss:");
    }

    /** smaps_rollup is about 20 short lines: anything far larger is not one. */
    static final int MAX_ROLLUP_BYTES = 16 * 1024;

    /** The value of a "Key:  123 kB" line in bytes, or null when there is no such line. */
    static Long kbLine(Path file, String text, String key) throws IOException {
        for (String line : text.split("\n")) {
            if (line.startsWith(key)) {
                String[] f = line.substring(key.length()).strip().split("\\s+");
                try {
                    long v = Long.parseLong(f[0]);
                    if (v < 0) {
                        throw new NumberFormatException();
                    }
                    return f.length > 1 && f[1].equalsIgnoreCase("kB") ? v * 1024 : v;
                } catch (NumberFormatException e) {
                    throw new IOException(file + ": not a number in '" + ProcFiles.clip(line) + "'");
                }
            }
        }
        return null;
    }
}
