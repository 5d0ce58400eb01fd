package io.tailwatch.tools.doctor;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.platform.HostSources;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck;
import io.tailwatch.metrics.MetricHub;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Samples every host signal the way the daemon does (twice, so power has an interval), then runs
 * the OS's own tools and compares.
 */
public final class Doctor {
    /** The gap between the two samples: power and GPU residency are deltas. */
    static final Duration GAP = Duration.ofSeconds(1);

    private Doctor() {
    }

    public static DoctorReport run(Config config, ToolRunner tools) {
        return run(config, tools, false);
    }

    /** {@code withSudo}: also compare power and GPU frequency with {@code sudo -n powermetrics} (macOS). */
    public static DoctorReport run(Config config, ToolRunner tools, boolean withSudo) {
        return checked(config, HostSources.forThisHost(config), HostSources.nativeProbesClass(),
                io.tailwatch.core.config.DataDir.of(System.getenv()), tools, HostSources.isMac(), withSudo);
    }

    /**
     * Runs the native self-check afresh (each probe in a child process, whatever the record says), keeps
     * out of this process the samplers whose probe crashed or hung it, then checks the rest. A null
     * {@code nativeProbes} skips the self-check.
     */
    public static DoctorReport checked(Config config, List<Sampler> samplers, String nativeProbes, Path dataDir,
                                       ToolRunner tools, boolean mac, boolean withSudo) {
        List<String> ids = NativeSelfCheck.probeIds(samplers);
        if (nativeProbes == null || ids.isEmpty()) {
            return run(config, samplers, tools, mac, withSudo);
        }
        NativeSelfCheck.Report report = new NativeSelfCheck(dataDir,
                NativeSelfCheck.osBuild() + "; tailwatch " + io.tailwatch.core.host.platform.ResourceInfo.version(), nativeProbes)
                .afresh(ids);
        List<Sampler> gated = NativeSelfCheck.gate(samplers, report);
        return run(config, gated, tools, mac, withSudo).withChecksFirst(SelfCheckChecks.of(report, samplers));
    }

    public static DoctorReport run(Config config, List<Sampler> samplers, ToolRunner tools, boolean mac) {
        return run(config, samplers, tools, mac, false);
    }

    public static DoctorReport run(Config config, List<Sampler> samplers, ToolRunner tools, boolean mac, boolean withSudo) {
        HostSnapshot snap;
        Path procfs = config.host().procfs();
        String statBefore1 = null;
        String statAfter1 = null;
        LinuxReads before = null;
        LinuxReads after = null;
        try (HostSampling h = new HostSampling(samplers, config.host().interval(), config.host().timeout(), new MetricHub(),
                Clock.systemUTC())) {
            // On Linux the doctor's own reads bracket each sample, so a tolerance is what moved between them.
            statBefore1 = mac ? null : LinuxReads.stat(procfs);
            h.sampleOnce();
            statAfter1 = mac ? null : LinuxReads.stat(procfs);
            try {
                Thread.sleep(GAP.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            before = mac ? null : LinuxReads.take(procfs, tools);
            snap = h.sampleOnce();
            after = mac ? null : LinuxReads.take(procfs, tools);
        }
        EngineProcessSampler engineSampler = null;
        for (Sampler s : samplers) {
            if (s instanceof EngineProcessSampler e) {
                engineSampler = e;
            }
        }
        List<String> engineNames = config.engines().stream().map(EngineConfig::name).toList();
        List<Check> engineChecks = EngineProcessChecks.of(snap, engineSampler, engineNames, tools, mac);
        if (!mac) {
            engineChecks.addAll(EngineProcessChecks.pss(snap, engineSampler, engineNames, procfs));
        }
        if (mac) {
            Map<List<String>, String> outputs = new HashMap<>();
            Map<List<String>, String> errors = new HashMap<>();
            List<List<String>> commands = new ArrayList<>(MacDoctor.TOOLS);
            commands.addAll(GpuMemoryChecks.TOOLS);
            commands.addAll(PowerSourceChecks.TOOLS);
            if (withSudo) {
                commands.add(MacDoctor.POWERMETRICS);
            }
            for (List<String> cmd : commands) {
                try {
                    outputs.put(cmd, tools.run(cmd));
                } catch (IOException e) {
                    errors.put(cmd, e.getMessage());
                }
            }
            List<Check> checks = new ArrayList<>(MacDoctor.checks(snap, outputs, errors));
            checks.addAll(GpuMemoryChecks.checks(snap, outputs, errors));
            checks.addAll(gpuTime(samplers, engineSampler, engineNames, tools, snap));
            checks.addAll(PowerSourceChecks.checks(snap, outputs, errors));
            checks.addAll(engineChecks);
            return new DoctorReport("macOS", checks, snap.results());
        }
        List<Check> checks = new ArrayList<>(LinuxDoctor.checks(snap, statBefore1, statAfter1, before, after));
        checks.addAll(PowerSourceChecks.sources(snap, false));
        checks.addAll(engineChecks);
        return new DoctorReport("Linux, procfs " + config.host().procfs(), checks, snap.results());
    }

    /** Each engine's GPU time against ioreg run right after the sampler's last reading (GpuTimeChecks). */
    static List<Check> gpuTime(List<Sampler> samplers, EngineProcessSampler engines, List<String> engineNames, ToolRunner tools,
                               HostSnapshot snap) {
        io.tailwatch.core.host.macos.MacGpuTimeSampler gpu = null;
        for (Sampler s : samplers) {
            if (s instanceof io.tailwatch.core.host.macos.MacGpuTimeSampler g) {
                gpu = g;
            }
        }
        Map<String, java.util.Set<Integer>> pids = new java.util.LinkedHashMap<>();
        for (String e : engineNames) {
            pids.put(e, engines == null ? java.util.Set.of() : engines.pidsOf(e));
        }
        io.tailwatch.core.host.macos.MacGpuTimeSampler.Reading reading = gpu == null ? null : gpu.lastReading();
        String out = null;
        String why = null;
        try {
            out = tools.run(GpuTimeChecks.IOREG);
        } catch (IOException e) {
            why = e.getMessage();
        }
        return GpuTimeChecks.checks(snap, reading, pids, out, why, System.nanoTime());
    }
}
