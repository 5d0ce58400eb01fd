package io.tailwatch.core.host.macos;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Structure;
import com.sun.jna.platform.mac.SystemB;
import com.sun.jna.platform.unix.LibCAPI.size_t;
import io.tailwatch.core.host.ProcessTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Processes through libproc (jna-platform's SystemB): proc_listpids, proc_pidinfo (BSD info for the
 * parent and name, the fd list), proc_pidfdinfo (listening TCP sockets), proc_pidpath, sysctl
 * KERN_PROCARGS2 for arguments, and proc_pid_rusage(RUSAGE_INFO_V2) for memory. Processes of other
 * users refuse most of these calls without root; they are skipped.
 */
public final class MacNativeProcessTable implements ProcessTable {
    private static final int CTL_KERN = 1;
    private static final int KERN_PROCARGS2 = 49;
    private static final int TSI_S_LISTEN = 1;
    private static final int ARGS_BUFFER = 256 * 1024;
    /** argc and the executable path (up to PATH_MAX) come before the arguments. */
    private static final int PREFIX_BYTES = 4 + 1024 + MAX_ARG_BYTES;
    private static final int MAX_FDS = 4096;

    private final SystemB sys = SystemB.INSTANCE;
    private final Memory argsBuffer = new Memory(ARGS_BUFFER);
    private final Memory pathBuffer = new Memory(SystemB.PROC_PIDPATHINFO_MAXSIZE);

    private MacNativeProcessTable() {
    }

    public static MacNativeProcessTable open() {
        return new MacNativeProcessTable();
    }

    private int[] pids() throws IOException {
        int bytes = sys.proc_listpids(SystemB.PROC_ALL_PIDS, 0, null, 0);
        if (bytes <= 0) {
            throw new IOException("proc_listpids failed (errno " + Native.getLastError() + ")");
        }
        int[] pids = new int[bytes / 4 + 64];
        int got = sys.proc_listpids(SystemB.PROC_ALL_PIDS, 0, pids, pids.length * 4);
        if (got <= 0) {
            throw new IOException("proc_listpids failed (errno " + Native.getLastError() + ")");
        }
        int n = Math.min(pids.length, got / 4);
        int[] out = new int[n];
        System.arraycopy(pids, 0, out, 0, n);
        return out;
    }

    /**
     * Every process with a bounded prefix of its arguments. KERN_PROCARGS2 copies the top of the
     * process's argument area, so a buffer shorter than the area returns its end (the environment),
     * not argv: the size is asked first and a process whose area exceeds the (native, reused) buffer
     * keeps only its name and executable. Of each answer at most {@link ProcessTable#MAX_ARG_BYTES}
     * (plus the executable path) is copied to the heap, and at most
     * {@link ProcessTable#MAX_ARG_BYTES_PER_CYCLE} over all processes.
     */
    @Override
    public synchronized List<ProcessInfo> processes() throws IOException {
        List<ProcessInfo> out = new ArrayList<>();
        long budget = MAX_ARG_BYTES_PER_CYCLE;
        for (int pid : pids()) {
            if (pid <= 0) {
                continue;
            }
            SystemB.ProcBsdInfo bsd = new SystemB.ProcBsdInfo();
            if (sys.proc_pidinfo(pid, SystemB.PROC_PIDTBSDINFO, 0, bsd, bsd.size()) != bsd.size()) {
                continue;
            }
            String name = cString(bsd.pbi_name);
            if (name.isEmpty()) {
                name = cString(bsd.pbi_comm);
            }
            String exe = "";
            pathBuffer.clear();
            if (sys.proc_pidpath(pid, pathBuffer, (int) pathBuffer.size()) > 0) {
                exe = pathBuffer.getString(0, StandardCharsets.UTF_8.name());
            }
            List<String> args = List.of();
            if (budget >= PREFIX_BYTES) { // a whole prefix or none: never a line cut shorter by the budget
                byte[] prefix = argsPrefix(pid, PREFIX_BYTES);
                budget -= prefix.length;
                args = ProcArgs.decode(prefix, prefix.length).args();
            }
            out.add(new ProcessInfo(pid, bsd.pbi_ppid, name, exe, args));
        }
        return out;
    }

    /** The first {@code max} bytes of the process's KERN_PROCARGS2 answer, or none. */
    private byte[] argsPrefix(int pid, int max) {
        int[] mib = {CTL_KERN, KERN_PROCARGS2, pid};
        size_t.ByReference size = new size_t.ByReference(0);
        if (sys.sysctl(mib, mib.length, null, size, null, size_t.ZERO) != 0 || size.longValue() > ARGS_BUFFER) {
            return new byte[0];
        }
        size = new size_t.ByReference(ARGS_BUFFER);
        if (sys.sysctl(mib, mib.length, argsBuffer, size, null, size_t.ZERO) != 0) {
            return new byte[0];
        }
        int n = (int) Math.min(Math.min(size.longValue(), ARGS_BUFFER), max);
        return argsBuffer.getByteArray(0, n);
    }

    private static String cString(byte[] b) {
        int len = 0;
        while (len < b.length && b[len] != 0) {
            len++;
        }
        return new String(b, 0, len, StandardCharsets.UTF_8);
    }

    @Override
    public synchronized Map<Integer, Set<Integer>> listening(Set<Integer> ports) throws IOException {
        Map<Integer, Set<Integer>> out = new HashMap<>();
        for (int pid : pids()) {
            if (pid <= 0) {
                continue;
            }
            int bytes = sys.proc_pidinfo(pid, SystemB.PROC_PIDLISTFDS, 0, null, 0);
            if (bytes <= 0) {
                continue;
            }
            SystemB.ProcFdInfo first = new SystemB.ProcFdInfo();
            int count = Math.min(MAX_FDS, bytes / first.size() + 8);
            Structure[] fds = first.toArray(count);
            int got = sys.proc_pidinfo(pid, SystemB.PROC_PIDLISTFDS, 0, first, count * first.size());
            if (got <= 0) {
                continue;
            }
            int n = Math.min(count, got / first.size());
            for (int i = 0; i < n; i++) {
                SystemB.ProcFdInfo fd = (SystemB.ProcFdInfo) fds[i];
                fd.read();
                if (fd.proc_fdtype != SystemB.PROX_FDTYPE_SOCKET) {
                    continue;
                }
                Integer port = listeningPort(pid, fd.proc_fd);
                if (port != null && ports.contains(port)) {
                    out.computeIfAbsent(port, k -> new HashSet<>()).add(pid);
                }
            }
        }
        return out;
    }

    private Integer listeningPort(int pid, int fd) {
        SystemB.SocketFdInfo si = new SystemB.SocketFdInfo();
        if (sys.proc_pidfdinfo(pid, fd, SystemB.PROC_PIDFDSOCKETINFO, si, si.size()) != si.size()) {
            return null;
        }
        if (si.psi.soi_kind != SystemB.SOCKINFO_TCP) {
            return null;
        }
        SystemB.TcpSockInfo tcp = si.psi.soi_proto.pri_tcp;
        if (tcp.tcpsi_state != TSI_S_LISTEN) {
            return null;
        }
        int lport = tcp.tcpsi_ini.insi_lport;
        // insi_lport holds the port in network byte order.
        return ((lport & 0xff) << 8) | ((lport >> 8) & 0xff);
    }

    @Override
    public ProcessMemory memory(int pid) throws IOException {
        SystemB.RUsageInfoV2 ri = new SystemB.RUsageInfoV2();
        if (sys.proc_pid_rusage(pid, SystemB.RUSAGE_INFO_V2, ri) != 0) {
            return null;
        }
        RusageInfoV2 r = RusageInfoV2.decode(ri.getPointer().getByteArray(0, ri.size()));
        return new ProcessMemory(r.residentSize(), r.physFootprint());
    }
}
