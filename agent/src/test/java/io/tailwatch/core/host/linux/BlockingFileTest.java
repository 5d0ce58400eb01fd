package io.tailwatch.core.host.linux;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSampling;
import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.SelfMetrics;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A host file that blocks on read (a FIFO standing in for a hung mount) costs one thread, not one per cycle. */
class BlockingFileTest {
    @TempDir
    Path root;

    private static long samplerThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("tailwatch-sampler")).count();
    }

    @Test
    void aSamplerBlockedOnAFifoIsReportedStuckAndHoldsOneThread() throws Exception {
        Path blocked = Files.createDirectories(root.resolve("blocked"));
        Path fifo = blocked.resolve("meminfo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mk.waitFor()).isZero();
        Path good = Files.createDirectories(root.resolve("good"));
        Files.copy(LinuxSamplersTest.fixture("linux-swap/proc").resolve("meminfo"), good.resolve("meminfo"));

        MemorySampler blockedMemory = new MemorySampler(blocked);
        Sampler stuck = new Sampler() {
            @Override
            public String name() {
                return "memory_blocked";
            }

            @Override
            public List<io.tailwatch.metrics.Point> sample() throws Exception {
                return blockedMemory.sample();
            }
        };
        Sampler fine = new MemorySampler(good);
        MetricHub hub = new MetricHub();
        HostSampling sampling = new HostSampling(List.of(stuck, fine), Duration.ofSeconds(1), Duration.ofMillis(200),
                hub, Clock.systemUTC());
        long before = samplerThreads();
        try {
            HostSnapshot last = null;
            for (int cycle = 0; cycle < 15; cycle++) {
                last = sampling.sampleOnce();
                // The sibling keeps working every cycle.
                assertThat(last.results().get(fine.name()).success()).isTrue();
            }
            assertThat(samplerThreads() - before).isLessThanOrEqualTo(2);
            assertThat(last.results().get("memory_blocked").success()).isFalse();
            assertThat(last.results().get("memory_blocked").error()).startsWith("stuck:");
            assertThat(sampling.stuck()).containsKey("memory_blocked");
            assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_STUCK, io.tailwatch.metrics.AttrKeys.SAMPLER, "memory_blocked")).isEqualTo(1.0);
            assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_STUCK, io.tailwatch.metrics.AttrKeys.SAMPLER, fine.name())).isEqualTo(0.0);
            assertThat(hub.snapshot().value(HostMetrics.MEMORY_LIMIT)).isNotNull();

            // Unblock the read (the mount recovers): the file becomes a plain one again, the stuck read
            // returns, and the sampler is asked again and is no longer stuck.
            try (OutputStream o = Files.newOutputStream(fifo)) {
                Files.delete(fifo);
                Files.copy(good.resolve("meminfo"), fifo);
                o.write(Files.readAllBytes(good.resolve("meminfo")));
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                sampling.sampleOnce();
                assertThat(sampling.stuck()).isEmpty();
            });
            assertThat(hub.snapshot().value(SelfMetrics.SAMPLER_STUCK, io.tailwatch.metrics.AttrKeys.SAMPLER, "memory_blocked")).isEqualTo(0.0);
        } finally {
            sampling.close();
        }
    }
}
