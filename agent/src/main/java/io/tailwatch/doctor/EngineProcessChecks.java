package io.tailwatch.doctor;

import io.tailwatch.host.EngineProcessSampler;
import io.tailwatch.host.HostSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Each engine's summed RSS beside {@code ps -o rss= -p PID,...} for the same processes (KiB on both
 * macOS and Linux). RSS moves while the tool runs, so they must agree within
 * {@value #TOLERANCE_PERCENT} % or {@value #TOLERANCE_FLOOR_MIB} MiB, whichever is larger.
 */
public final class EngineProcessChecks {
    public static final double TOLERANCE_PERCENT = 10;
    public static final long TOLERANCE_FLOOR_MIB = 8;

    private EngineProcessChecks() {
    }

    public static List<Check> of(HostSnapshot s, EngineProcessSampler sampler, List<String> engines, ToolRunner tools) {
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
        }
        return out;
    }
}
