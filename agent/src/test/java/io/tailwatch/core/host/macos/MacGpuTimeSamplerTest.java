package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MacGpuTimeSamplerTest {
    static final Path DIR = Path.of(System.getProperty("tailwatch.root", ".."), "agent", "src", "test", "resources",
            "fixtures", "macos-ioaccelerator");
    static final long SECOND = 1_000_000_000L;

    static GpuClients reading(int n) throws IOException {
        return GpuClients.parseIoreg(Files.readString(DIR.resolve("agx-user-clients-" + n + ".txt")));
    }

    /** The accelerator source over a queue of readings, as MacNativeAccelerator.userClients() would return them. */
    static Lazy<AcceleratorSource> source(GpuClients... readings) {
        Deque<GpuClients> q = new ArrayDeque<>(List.of(readings));
        AcceleratorSource s = new AcceleratorSource() {
            @Override
            public List<Map<String, Long>> performanceStatistics() {
                return List.of();
            }

            @Override
            public GpuClients userClients() {
                return q.removeFirst();
            }
        };
        return Lazy.of("fixture", () -> s);
    }

    static Double value(List<Point> points, String engine) {
        return points.stream().filter(p -> p.metric() == HostMetrics.PROCESS_GPU_UTILIZATION
                        && engine.equals(p.attributes().get(AttrKeys.ENGINE)))
                .map(Point::value).findFirst().orElse(null);
    }

    @Test
    void the_property_dictionaries_give_each_client_its_creator_and_summed_gpu_time() throws Exception {
        GpuClients r = reading(1);
        // the accelerator itself (no IOUserClientCreator) is not a client; the other six are
        assertThat(r.clients()).hasSize(6);
        GpuClients.Client first = r.clients().get(0);
        assertThat(first).isEqualTo(new GpuClients.Client(0, 0x1000004a1L, 412, "WindowServer", 96_016_052_209L));
        // an empty AppUsage is a client with no GPU time yet, not an absent one
        assertThat(r.clients().get(1).gpuTimeNs()).isZero();
        // two API entries: 15.2 s + 0.8 s
        assertThat(r.clients().get(2).gpuTimeNs()).isEqualTo(16_000_000_000L);
        // pid 4242 has two command queues: 16 s + 2.5 s
        assertThat(r.byPid()).containsEntry(4242, 18_500_000_000L).containsEntry(1733, 41_000_000_000L);
        assertThat(r.maxEntryId()).isEqualTo(0x100003b07L);
    }

    @Test
    void decoding_refuses_what_is_not_a_gpu_time_client() {
        assertThat(GpuClients.decode(0, 1, Map.of("IOUserClientCreator", "pid 7, x"))).isNull(); // no AppUsage
        assertThat(GpuClients.decode(0, 1, Map.of("AppUsage", List.of()))).isNull(); // no creator
        assertThat(GpuClients.decode(0, 1, Map.of("IOUserClientCreator", "WindowServer", "AppUsage", List.of()))).isNull();
        assertThat(GpuClients.decode(0, 1, Map.of("IOUserClientCreator", "pid 7, x",
                "AppUsage", List.of(Map.of("accumulatedGPUTime", -5L))))).isNull();
        // Usages summing past 2^63 ns: a decoding error, so not a reading (and not an exception for the whole sample)
        assertThat(GpuClients.decode(0, 1, Map.of("IOUserClientCreator", "pid 7, x", "AppUsage",
                List.of(Map.of("accumulatedGPUTime", Long.MAX_VALUE - 1), Map.of("accumulatedGPUTime", 2L))))).isNull();
        assertThat(GpuClients.decode(0, 1, Map.of("IOUserClientCreator", "pid 7, x", "AppUsage",
                List.of(Map.of("accumulatedGPUTime", Long.MAX_VALUE - 2), Map.of("accumulatedGPUTime", 2L)))))
                .isEqualTo(new GpuClients.Client(0, 1, 7, "x", Long.MAX_VALUE));
        // Intel drivers: the time on the client itself
        assertThat(GpuClients.decode(1, 9, Map.of("IOUserClientCreator", "pid 7, WindowServer", "accumulatedGPUTime", 42L)))
                .isEqualTo(new GpuClients.Client(1, 9, 7, "WindowServer", 42));
    }

    @Test
    void each_engine_gets_its_processes_share_of_the_gpu_between_two_readings() throws Exception {
        AtomicLong clock = new AtomicLong(5 * SECOND);
        Map<String, Set<Integer>> pids = Map.of("llama", Set.of(4242), "ollama", Set.of(501, 1733),
                "vllm", Set.of(7777), "lmstudio", Set.of(9001), "mlx", Set.of());
        MacGpuTimeSampler s = new MacGpuTimeSampler(source(reading(1), reading(2)), () -> pids, clock::get);
        assertThat(s.sample()).isEmpty(); // the baseline
        clock.addAndGet(2 * SECOND);
        List<Point> points = s.sample();
        // worked out in fixtures/macos-ioaccelerator/README.md: 1.5 s in 2 s; 1.1 s in 2 s
        assertThat(value(points, "llama")).isCloseTo(0.75, within(1e-12));
        assertThat(value(points, "ollama")).isCloseTo(0.55, within(1e-12));
        // running with no GPU client: no GPU work, a real 0
        assertThat(value(points, "vllm")).isZero();
        // a client the first reading may have missed: unknown, absent; not running: absent
        assertThat(value(points, "lmstudio")).isNull();
        assertThat(value(points, "mlx")).isNull();
        assertThat(points).hasSize(3).allSatisfy(p -> {
            assertThat(p.attributes()).containsEntry(AttrKeys.HW_ID, "gpu0").containsEntry(AttrKeys.HW_TYPE, "gpu");
        });
        assertThat(s.lastReading().clients().clients()).hasSize(7);
    }

    @Test
    void overlapping_queues_are_bounded_at_one_gpu_and_a_counter_that_went_back_is_unknown() {
        GpuClients before = new GpuClients(1, List.of(new GpuClients.Client(0, 10, 1, "a", 0),
                new GpuClients.Client(0, 11, 1, "a", 0), new GpuClients.Client(0, 12, 2, "b", 5 * SECOND)));
        GpuClients after = new GpuClients(1, List.of(new GpuClients.Client(0, 10, 1, "a", 1_400_000_000L),
                new GpuClients.Client(0, 11, 1, "a", 1_200_000_000L), new GpuClients.Client(0, 12, 2, "b", SECOND)));
        Map<Long, Long> prev = Map.of(10L, 0L, 11L, 0L, 12L, 5 * SECOND);
        Map<String, double[]> u = MacGpuTimeSampler.utilization(after, prev, 12, 2 * SECOND,
                Map.of("a", Set.of(1), "b", Set.of(2)));
        assertThat(u.get("a")).containsExactly(1.0); // 2.6 s of queue time in 2 s
        assertThat(u).doesNotContainKey("b");
        assertThat(before.maxEntryId()).isEqualTo(12);
    }

    @Test
    void an_accelerator_that_shows_no_client_at_all_exports_nothing() throws Exception {
        AtomicLong clock = new AtomicLong();
        MacGpuTimeSampler s = new MacGpuTimeSampler(source(new GpuClients(1, List.of()), new GpuClients(1, List.of())),
                () -> Map.of("llama", Set.of(4242)), clock::get);
        s.sample();
        clock.addAndGet(SECOND);
        assertThat(s.sample()).isEmpty();
    }
}
