package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.HostSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Each engine's summed RSS beside {@code ps -o rss= -p PID,...} for the same processes (KiB on both
 * macOS and Linux) and, on macOS, its summed footprint beside {@code footprint -f bytes PID} run per
 * process (one process per run, so nothing is de-duplicated across them, as ri_phys_footprint is
 * not). Memory moves while the tools run, so they must agree within {@value #TOLERANCE_PERCENT} % or
 * {@value #TOLERANCE_FLOOR_MIB} MiB, whichever is larger.
 */
public final class EngineProcessChecks {
    public static final double TOLERANCE_PERCENT = 10;
    public static final long TOLERANCE_FLOOR_MIB = 8;
    /** footprint takes a moment per process: at most this many per engine are checked. */
    static final int MAX_FOOTPRINT_PIDS = 16;

    private EngineProcessChecks() {
    }

    public static List<Check> of(HostSnapshot s, EngineProcessSampler sampler, List<String> engines, ToolRunner tools) {
        return of(s, sampler, engines, tools, false);
    }

    public static List<Check> of(HostSnapshot s, EngineProcessSampler sampler, List<String> engines, ToolRunner tools,
                                 boolean mac) {
        List<Check> out = new ArrayList<>();
        if (sampler == null) {
            return out;
        }
        for (String engine : engines) {
            Set<Integer> pids = sampler.pidsOf(engine);
            String signal = "tailwatch.process.memory.rss{" + engine + "}";
            Double nativeRss = s.processRss(engine);
            if (pids.isEmpty()) {
                out.add(new Check(signal, nativeRss == null ? "absent" : Checks.format(nativeRss, "B"), "-", "-", "-",
                        Check.Verdict.UNAVAILABLE, "no process of this engine is running"));
                continue;
            }
            List<String> cmd = List.of("ps", "-o", "rss=", "-p",
                    pids.stream().sorted().map(String::valueOf).collect(Collectors.joining(",")));
            String tool = "ps -o rss= -p " + cmd.get(4);
            try {
                long kib = 0;
                for (String line : tools.run(cmd).split("\\R")) {
                    if (!line.isBlank()) {
                        kib += Long.parseLong(line.strip());
                    }
                }
                double toolRss = kib * 1024.0;
                double tol = Math.max(TOLERANCE_FLOOR_MIB * 1024.0 * 1024, toolRss * TOLERANCE_PERCENT / 100);
                out.add(Checks.compare(signal, nativeRss, tool, toolRss, tol, "B"));
            } catch (IOException | NumberFormatException e) {
                out.add(Checks.toolUnavailable(signal, nativeRss, tool, e.getMessage(), "B"));
            }
            if (mac) {
                out.addAll(footprints(s, engine, pids, tools));
            }
        }
        return out;
    }

    /**
     * Linux: each engine's summed PSS beside the Pss lines of /proc/PID/smaps summed over its mappings
     * (the per-mapping file, not the rollup the sampler reads), within the tolerance of the RSS check; and
     * an engine whose figure is labelled rss while every smaps could be read is a disagreement.
     */
    public static List<Check> pss(HostSnapshot s, EngineProcessSampler sampler, List<String> engines,
                                  java.nio.file.Path procfs) {
        List<Check> out = new ArrayList<>();
        if (sampler == null) {
            return out;
        }
        for (String engine : engines) {
            Set<Integer> pids = sampler.pidsOf(engine);
            if (pids.isEmpty()) {
                continue;
            }
            String signal = "tailwatch.process.memory.pss{" + engine + "}";
            Double nativePss = s.processPss(engine);
            String source = s.processPssSource(engine);
            String tool = "Pss of /proc/PID/smaps (" + pids.stream().sorted().map(String::valueOf).collect(Collectors.joining(",")) + ")";
            Long smaps = smapsPss(procfs, pids);
            if (smaps == null) {
                out.add(new Check(signal, nativePss == null ? "absent" : Checks.format(nativePss, "B") + " (" + source + ")",
                        tool, "unreadable", "-", "rss".equals(source) ? Check.Verdict.AGREE : Check.Verdict.UNAVAILABLE,
                        "smaps cannot be read here: RSS stands in, labelled rss"));
                continue;
            }
            if ("rss".equals(source)) {
                out.add(new Check(signal, Checks.format(nativePss, "B") + " (rss)", tool, Checks.format(smaps, "B"), "-",
                        Check.Verdict.DISAGREE, "every smaps is readable, yet the figure fell back to RSS"));
                continue;
            }
            out.add(Checks.compareRelative(signal, nativePss, tool, (double) smaps, TOLERANCE_PERCENT / 100,
                    TOLERANCE_FLOOR_MIB * 1024.0 * 1024, "B"));
        }
        return out;
    }

    /** The Pss lines of every mapping in each process's smaps, summed, in bytes; null when one is unreadable. */
    static Long smapsPss(java.nio.file.Path procfs, Set<Integer> pids) {
        long kib = 0;
        for (int pid : pids) {
            java.nio.file.Path f = procfs.resolve(Integer.toString(pid)).resolve("smaps");
            try (java.io.BufferedReader r = java.nio.file.Files.newBufferedReader(f)) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (line.startsWith("Pss:")) {
                        kib += Long.parseLong(line.substring(4).replace("kB", "").trim());
                    }
                }
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }
        return kib * 1024;
    }

    static Check footprint(HostSnapshot s, String engine, Set<Integer> pids, ToolRunner tools) {
        return footprints(s, engine, pids, tools).get(0);
    }

    /**
     * The engine's footprint and its graphics memory beside {@code footprint -f bytes PID} for each of its
     * processes: the header's footprint, and the {@code (graphics)} rows (tailwatch reads the TASK_VM_INFO
     * graphics ledgers the tool reads too), each summed over the processes, within the RSS tolerance.
     */
    static List<Check> footprints(HostSnapshot s, String engine, Set<Integer> pids, ToolRunner tools) {
        String signal = "tailwatch.process.memory.footprint{" + engine + "}";
        String gpuSignal = "tailwatch.process.gpu.memory.usage{" + engine + "}";
        Double nativeFootprint = s.processFootprint(engine);
        Double nativeGpu = s.processGpuMemory(engine);
        List<Integer> sorted = pids.stream().sorted().toList();
        String tool = "footprint -f bytes PID (" + sorted.stream().map(String::valueOf).collect(Collectors.joining(",")) + ")";
        if (sorted.size() > MAX_FOOTPRINT_PIDS) {
            String why = sorted.size() + " processes; footprint is checked for at most " + MAX_FOOTPRINT_PIDS;
            return List.of(Checks.toolUnavailable(signal, nativeFootprint, tool, why, "B"),
                    Checks.toolUnavailable(gpuSignal, nativeGpu, tool, why, "B"));
        }
        List<String> texts = new ArrayList<>();
        long bytes = 0;
        try {
            for (int pid : sorted) {
                String text = tools.run(List.of("footprint", "-f", "bytes", Integer.toString(pid)));
                bytes += io.tailwatch.core.host.macos.MacToolText.footprintBytes(text, pid);
                texts.add(text);
            }
        } catch (IOException e) {
            return List.of(Checks.toolUnavailable(signal, nativeFootprint, tool, e.getMessage(), "B"),
                    Checks.toolUnavailable(gpuSignal, nativeGpu, tool, e.getMessage(), "B"));
        }
        return List.of(Checks.compareRelative(signal, nativeFootprint, tool, (double) bytes, TOLERANCE_PERCENT / 100,
                TOLERANCE_FLOOR_MIB * 1024.0 * 1024, "B"), graphics(gpuSignal, nativeGpu, tool + " (graphics)", texts));
    }

    /** tailwatch's graphics memory of an engine beside the (graphics) rows of footprint's outputs for its processes. */
    static Check graphics(String signal, Double nativeGpu, String tool, List<String> footprintTexts) {
        long sum = 0;
        for (String text : footprintTexts) {
            sum += io.tailwatch.core.host.macos.MacToolText.footprintGraphicsBytes(text);
        }
        return Checks.compareRelative(signal, nativeGpu, tool, (double) sum, TOLERANCE_PERCENT / 100,
                TOLERANCE_FLOOR_MIB * 1024.0 * 1024, "B");
    }
}
