package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.linux.LinuxNativeSysinfo;
import io.tailwatch.core.host.linux.Sysinfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code doctor} reads on Linux by paths of its own, once just before and once just after the
 * sample it checks: {@code free -b -w}, {@code vmstat -s}, {@code sysinfo(2)}, /proc/stat and the PSI
 * files (parsed here, not by the samplers' code). A part that cannot be read is null with its error.
 */
public record LinuxReads(String free, String freeError, String vmstat, String vmstatError, Sysinfo sysinfo,
                         String sysinfoError, String stat, Map<String, String> pressure) {
    static final List<String> FREE = List.of("free", "-b", "-w");
    static final List<String> VMSTAT = List.of("vmstat", "-s");
    static final List<String> PSI = List.of("memory", "cpu", "io");

    public LinuxReads {
        pressure = pressure == null ? Map.of() : Map.copyOf(pressure);
    }

    static LinuxReads take(Path procfs, ToolRunner tools) {
        String free = null;
        String freeError = null;
        try {
            free = tools.run(FREE);
        } catch (IOException e) {
            freeError = e.getMessage();
        }
        String vmstat = null;
        String vmstatError = null;
        try {
            vmstat = tools.run(VMSTAT);
        } catch (IOException e) {
            vmstatError = e.getMessage();
        }
        Sysinfo si = null;
        String siError = null;
        try {
            si = LinuxNativeSysinfo.read();
        } catch (IOException e) {
            siError = e.getMessage();
        }
        Map<String, String> psi = new HashMap<>();
        for (String r : PSI) {
            String text = readOrNull(procfs.resolve("pressure").resolve(r));
            if (text != null) {
                psi.put(r, text);
            }
        }
        return new LinuxReads(free, freeError, vmstat, vmstatError, si, siError, stat(procfs), psi);
    }

    static String stat(Path procfs) {
        return readOrNull(procfs.resolve("stat"));
    }

    private static String readOrNull(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null;
        }
    }
}
