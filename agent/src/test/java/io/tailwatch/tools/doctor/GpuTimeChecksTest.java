package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.macos.GpuClients;
import io.tailwatch.core.host.macos.MacGpuTimeSampler;
import io.tailwatch.metrics.HostMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GpuTimeChecksTest {
    static final Path DIR = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "macos-ioaccelerator");
    static final long SECOND = 1_000_000_000L;

    static Check find(List<Check> cs, String signal) {
        return cs.stream().filter(c -> c.signal().equals(signal)).findFirst().orElseThrow();
    }

    @Test
    void ioreg_after_the_reading_shows_at_most_the_gap_more_gpu_time() throws Exception {
        // the sampler read the first capture at t = 10 s; ioreg printed the second one 2 s later
        MacGpuTimeSampler.Reading reading = new MacGpuTimeSampler.Reading(
                GpuClients.parseIoreg(Files.readString(DIR.resolve("agx-user-clients-1.txt"))), 10 * SECOND);
        String ioreg = Files.readString(DIR.resolve("agx-user-clients-2.txt"));
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, List.of(HostMetrics.processGpuUtilization("llama", "gpu0", 0.75),
                HostMetrics.processGpuUtilization("ollama", "gpu0", 1.5)), Map.of());
        Map<String, Set<Integer>> pids = Map.of("llama", Set.of(4242), "ollama", Set.of(1733), "lmstudio", Set.of(9001),
                "mlx", Set.of());
        List<Check> cs = GpuTimeChecks.checks(snap, reading, pids, ioreg, null, 12 * SECOND);
        // llama: 18.5 s read, 20.0 s in ioreg: 1.5 s more in a 2 s gap
        assertThat(find(cs, "GPU time{llama}").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(find(cs, "GPU time{llama}").nativeValue()).isEqualTo("18.50 s");
        assertThat(find(cs, "GPU time{ollama}").verdict()).isEqualTo(Check.Verdict.AGREE);
        // 7 s of GPU time appeared for pid 9001 within 2 s on one GPU: impossible
        assertThat(find(cs, "GPU time{lmstudio}").verdict()).isEqualTo(Check.Verdict.DISAGREE);
        // a share above one GPU is an invalid reading; 0.75 is fine
        assertThat(find(cs, "tailwatch.process.gpu.utilization{llama}").verdict()).isEqualTo(Check.Verdict.CHECKED);
        assertThat(find(cs, "tailwatch.process.gpu.utilization{ollama}").verdict()).isEqualTo(Check.Verdict.INVALID);
        assertThat(cs).noneMatch(c -> c.signal().equals("GPU time{mlx}"));

        // the same two figures only 1 s apart: llama's 1.5 s no longer fits
        List<Check> tight = GpuTimeChecks.checks(snap, reading, pids, ioreg, null, 11 * SECOND);
        assertThat(find(tight, "GPU time{llama}").verdict()).isEqualTo(Check.Verdict.DISAGREE);
    }

    @Test
    void no_ioreg_is_not_a_failure_and_an_unread_sampler_is_when_ioreg_shows_time() throws Exception {
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, List.of(), Map.of());
        Map<String, Set<Integer>> pids = Map.of("llama", Set.of(4242));
        assertThat(find(GpuTimeChecks.checks(snap, null, pids, null, "not found", 0), "GPU time{llama}").verdict())
                .isEqualTo(Check.Verdict.UNAVAILABLE);
        String ioreg = Files.readString(DIR.resolve("agx-user-clients-2.txt"));
        assertThat(find(GpuTimeChecks.checks(snap, null, pids, ioreg, null, 0), "GPU time{llama}").verdict())
                .isEqualTo(Check.Verdict.DISAGREE);
    }
}
