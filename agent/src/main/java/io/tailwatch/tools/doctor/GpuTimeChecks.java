package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.macos.GpuClients;
import io.tailwatch.core.host.macos.MacGpuTimeSampler;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * macOS: each engine's GPU time as the sampler read it from the accelerator's user clients (IOKit), beside
 * {@code ioreg -r -c AGXDeviceUserClient} run just after: the accumulated time of the engine's processes
 * only grows, so ioreg's sum must be at least the native one and at most the native one plus the wall time
 * between the two reads times the GPUs (a process cannot run more than every GPU for the whole gap). A
 * client read in different units, read from the wrong process or summed twice falls outside that window;
 * a client that ended between the two reads can make ioreg's sum smaller (run the doctor again). The
 * engine's utilization itself is checked against [0, 1].
 */
public final class GpuTimeChecks {
    public static final List<String> IOREG = List.of("ioreg", "-r", "-c", "AGXDeviceUserClient");
    static final String TOOL = "ioreg -r -c AGXDeviceUserClient";
    /** Slack for clock reads around the two reads. */
    static final long SLACK_NS = 1_000_000;

    private GpuTimeChecks() {
    }

    /**
     * @param reading   the sampler's last reading (null when it has none: blocked, failed or not run)
     * @param enginePids each engine's processes
     * @param ioreg     the tool's output (null when it could not run; {@code why} says why)
     * @param ioregDone {@link System#nanoTime} when the tool's output was complete
     */
    public static List<Check> checks(HostSnapshot s, MacGpuTimeSampler.Reading reading, Map<String, Set<Integer>> enginePids,
                                     String ioreg, String why, long ioregDone) {
        List<Check> out = new ArrayList<>();
        for (Map.Entry<String, Set<Integer>> e : new java.util.TreeMap<>(enginePids).entrySet()) {
            String engine = e.getKey();
            Double share = s.value(HostMetrics.PROCESS_GPU_UTILIZATION, AttrKeys.ENGINE, engine);
            out.add(Checks.inRange("tailwatch.process.gpu.utilization{" + engine + "}", share, 0, 1.000001, "",
                    share == null ? "not read (first sample, no process, or the clients cannot be read)" : "a share of one GPU"));
            if (e.getValue().isEmpty()) {
                continue;
            }
            String signal = "GPU time{" + engine + "}";
            Long nativeNs = reading == null ? null : sum(reading.clients(), e.getValue());
            if (ioreg == null) {
                out.add(Checks.toolUnavailable(signal, nativeNs == null ? null : nativeNs / 1e9, TOOL, why, "s"));
                continue;
            }
            long toolNs = sum(GpuClients.parseIoreg(ioreg), e.getValue());
            if (nativeNs == null) {
                out.add(new Check(signal, "absent", TOOL, Checks.format(toolNs / 1e9, "s"), "-",
                        toolNs > 0 ? Check.Verdict.DISAGREE : Check.Verdict.UNAVAILABLE,
                        toolNs > 0 ? "tailwatch could not read the clients ioreg shows" : "no GPU client on either side"));
                continue;
            }
            int gpus = Math.max(1, reading.clients().gpus());
            long window = Math.max(0, ioregDone - reading.nanoTime()) * gpus + SLACK_NS;
            long diff = toolNs - nativeNs;
            boolean agree = diff >= 0 && diff <= window;
            out.add(new Check(signal, Checks.format(nativeNs / 1e9, "s"), TOOL, Checks.format(toolNs / 1e9, "s"),
                    String.format(Locale.ROOT, "ioreg - native in [0, %.3f s] (the gap between the reads x %d GPU)", window / 1e9, gpus),
                    agree ? Check.Verdict.AGREE : Check.Verdict.DISAGREE,
                    agree ? "" : diff < 0 ? "ioreg shows less GPU time than was read before it (a client ended? run again)"
                            : "ioreg shows more GPU time than the gap between the reads allows"));
        }
        return out;
    }

    private static long sum(GpuClients clients, Set<Integer> pids) {
        long t = 0;
        for (GpuClients.Client c : clients.clients()) {
            if (pids.contains(c.pid())) {
                t += c.gpuTimeNs();
            }
        }
        return t;
    }
}
