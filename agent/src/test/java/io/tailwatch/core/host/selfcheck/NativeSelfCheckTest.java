package io.tailwatch.core.host.selfcheck;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.BlockedSampler;
import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck.Report;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck.Status;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.AttrValues.SamplerState;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import io.tailwatch.metrics.SelfMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The self-check on real child JVMs, some of which crash on purpose. */
class NativeSelfCheckTest {
    private static final String PROBES = CrashingProbes.class.getName();

    @TempDir
    Path dir;

    @Test
    void aProbeThatSegfaultsTheChildIsCrashedAndTheProbesAfterItStillRun() throws Exception {
        Report r = new NativeSelfCheck(dir, "build A", PROBES).afresh(List.of("ok", "segv", "throws", "halt", "ok-too"));

        assertThat(r.results().get("ok").status()).isEqualTo(Status.PASSED);
        assertThat(r.results().get("segv").status()).isEqualTo(Status.CRASHED);
        // The JVM's crash report names the signal; the child aborts after writing it.
        assertThat(r.results().get("segv").detail()).contains("SIGSEGV");
        assertThat(r.results().get("throws").status()).isEqualTo(Status.FAILED);
        assertThat(r.results().get("throws").detail()).contains("library not found on this build");
        assertThat(r.results().get("halt").status()).isEqualTo(Status.CRASHED);
        assertThat(r.results().get("halt").detail()).contains("status 7");
        assertThat(r.results().get("ok-too").status()).isEqualTo(Status.PASSED);
        // One child to the crash, one from "throws" to the halt, one for the last probe.
        assertThat(r.children()).isEqualTo(3);
        // No crash report left behind in the working directory.
        try (var files = Files.list(Path.of("."))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("hs_err"));
        }
    }

    @Test
    void theRecordIsPerBuildAndAKnownBuildStartsNoChild() throws Exception {
        NativeSelfCheck a = new NativeSelfCheck(dir, "build A", PROBES);
        Report first = a.atBoot(List.of("ok", "segv"));
        assertThat(first.ranChild()).isTrue();
        assertThat(Files.readString(dir.resolve(NativeSelfCheck.FILE))).contains("\"build\" : \"build A\"")
                .contains("\"status\" : \"crashed\"");

        Report again = new NativeSelfCheck(dir, "build A", PROBES).atBoot(List.of("ok", "segv"));
        assertThat(again.ranChild()).isFalse();
        assertThat(again.results().get("segv").status()).isEqualTo(Status.CRASHED);
        assertThat(again.results().get("ok").status()).isEqualTo(Status.PASSED);

        // A probe the record lacks is checked alone; the others are read.
        Report added = new NativeSelfCheck(dir, "build A", PROBES).atBoot(List.of("ok", "segv", "throws"));
        assertThat(added.ranChild()).isTrue();
        assertThat(added.children()).isEqualTo(1);
        assertThat(added.results().get("throws").status()).isEqualTo(Status.FAILED);
        assertThat(added.results().get("segv").status()).isEqualTo(Status.CRASHED);

        // A new OS build checks everything again.
        Report other = new NativeSelfCheck(dir, "build B", PROBES).atBoot(List.of("ok"));
        assertThat(other.ranChild()).isTrue();
        assertThat(Files.readString(dir.resolve(NativeSelfCheck.FILE))).contains("build B").doesNotContain("segv");
    }

    @Test
    void aProbeThatHangsIsKilledAtItsDeadline() {
        Report r = new NativeSelfCheck(dir, "build A", PROBES, Duration.ofSeconds(4)).afresh(List.of("ok", "hang"));
        assertThat(r.results().get("ok").status()).isEqualTo(Status.PASSED);
        assertThat(r.results().get("hang").status()).isEqualTo(Status.TIMED_OUT);
        assertThat(r.results().get("hang").status().blocks()).isTrue();
    }

    @Test
    void aChildThatCannotStartItsProviderFailsEveryProbeWithoutBlockingOrRecordingThem() throws Exception {
        Report r = new NativeSelfCheck(dir, "build A", "no.such.Probes").atBoot(List.of("ok"));
        assertThat(r.results().get("ok").status()).isEqualTo(Status.FAILED);
        assertThat(r.results().get("ok").detail()).contains("before any probe").contains("no.such.Probes");
        assertThat(Files.readString(dir.resolve(NativeSelfCheck.FILE))).doesNotContain("\"ok\"");
    }

    @Test
    void aProbeThatReadsAWrongLayoutKeepsItsSamplerOutAndItsSiblingsRun() {
        AtomicInteger rejectedCalls = new AtomicInteger();
        Sampler clpc = CrashingProbes.sampler("power_clpc", "wrong-layout", rejectedCalls);
        Sampler fine = CrashingProbes.sampler("power", "ok", new AtomicInteger());
        Report r = new NativeSelfCheck(dir, "build A", PROBES).atBoot(NativeSelfCheck.probeIds(List.of(clpc, fine)));
        assertThat(r.results().get("wrong-layout").status()).isEqualTo(Status.REJECTED);
        assertThat(r.results().get("wrong-layout").detail()).contains("not an energy unit");
        assertThat(r.results().get("ok").status()).isEqualTo(Status.PASSED);
        List<Sampler> gated = NativeSelfCheck.gate(List.of(clpc, fine), r);
        assertThat(gated.get(0)).isInstanceOf(BlockedSampler.class);
        assertThat(gated.get(1)).isSameAs(fine);

        MetricHub hub = new MetricHub();
        try (HostSampling h = new HostSampling(gated, Duration.ofSeconds(10), Duration.ofSeconds(5), hub, Clock.systemUTC())) {
            HostSnapshot snap = h.sampleOnce();
            assertThat(rejectedCalls).hasValue(0);
            assertThat(snap.results().get("power_clpc").error()).contains("wrong-layout").contains("do not fit");
            assertThat(snap.results().get("power").success()).isTrue();
        }
        assertThat(hub.snapshot().points()).anyMatch(p -> p.metric() == SelfMetrics.SAMPLER_STATE
                && "power_clpc".equals(p.attributes().get(AttrKeys.SAMPLER))
                && SamplerState.REJECTED.value().equals(p.attributes().get(AttrKeys.SAMPLER_STATUS)));
    }

    @Test
    void aBlockedSamplerIsNeverCalledAndIsReportedWhileItsSiblingsRun() {
        AtomicInteger crashedCalls = new AtomicInteger();
        Sampler crashing = CrashingProbes.sampler("power", "segv", crashedCalls);
        Sampler fine = CrashingProbes.sampler("memory", "ok", new AtomicInteger());
        Report r = new NativeSelfCheck(dir, "build A", PROBES).atBoot(NativeSelfCheck.probeIds(List.of(crashing, fine)));
        List<Sampler> gated = NativeSelfCheck.gate(List.of(crashing, fine), r);
        assertThat(gated.get(0)).isInstanceOf(BlockedSampler.class);
        assertThat(gated.get(1)).isSameAs(fine);

        MetricHub hub = new MetricHub();
        try (HostSampling h = new HostSampling(gated, Duration.ofSeconds(10), Duration.ofSeconds(5), hub, Clock.systemUTC())) {
            HostSnapshot snap = h.sampleOnce();
            h.sampleOnce();
            assertThat(crashedCalls).hasValue(0);
            assertThat(snap.results().get("power").success()).isFalse();
            assertThat(snap.results().get("power").error()).contains("segv").contains("crashed").contains("build A")
                    .contains("SIGSEGV");
            assertThat(snap.results().get("memory").success()).isTrue();
            assertThat(snap.points()).anyMatch(p -> p.metric() == HostMetrics.MEMORY_LIMIT);
        }
        List<Point> self = hub.snapshot().points().stream().filter(p -> p.metric() == SelfMetrics.SAMPLER_STATE).toList();
        assertThat(self).anyMatch(p -> "power".equals(p.attributes().get(AttrKeys.SAMPLER))
                && SamplerState.CRASHED.value().equals(p.attributes().get(AttrKeys.SAMPLER_STATUS)));
        assertThat(self).anyMatch(p -> "memory".equals(p.attributes().get(AttrKeys.SAMPLER))
                && SamplerState.RUNNING.value().equals(p.attributes().get(AttrKeys.SAMPLER_STATUS)));
    }

    @Test
    void theOsBuildComesFromSystemVersionPlistOnAMac() {
        String plist = """
                <dict>
                	<key>ProductBuildVersion</key>
                	<string>24B83</string>
                	<key>ProductVersion</key>
                	<string>15.1</string>
                </dict>""";
        assertThat(NativeSelfCheck.plistString(plist, "ProductBuildVersion")).isEqualTo("24B83");
        assertThat(NativeSelfCheck.plistString(plist, "ProductVersion")).isEqualTo("15.1");
        assertThat(NativeSelfCheck.osBuild()).isNotBlank();
    }
}
