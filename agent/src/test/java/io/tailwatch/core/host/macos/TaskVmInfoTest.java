package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.core.kv.KvPlan;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * TASK_VM_INFO rev3 laid out here per xnu's osfmk/mach/task_info.h, field by field in declaration order
 * (pack(4): two int32 after virtual_size, then 8-byte fields), not from {@link TaskVmInfo}'s offsets.
 */
class TaskVmInfoTest {
    static final long GIB = 1L << 30;

    /** A rev3 struct with the named fields set, every other field a distinct filler so a wrong offset shows. */
    static byte[] rev3(long physFootprint, long graphics, long graphicsCompressed, int pageSize) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(84 * 4).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putLong(7_000 * GIB);             // virtual_size
        b.putInt(4242);                     // region_count
        b.putInt(pageSize);                 // page_size
        for (int i = 0; i < 16; i++) {      // resident_size .. compressed_lifetime (16 mach_vm_size_t)
            b.putLong(1_000_000L + i);
        }
        b.putLong(physFootprint);           // rev1: phys_footprint
        b.putLong(0x1_0000_0000L);          // rev2: min_address
        b.putLong(0x7_0000_0000L);          // rev2: max_address
        b.putLong(physFootprint + 5);       // rev3: ledger_phys_footprint_peak
        for (int i = 0; i < 12; i++) {      // purgeable (4), network (4), media (4)
            b.putLong(3_000L + i);
        }
        b.putLong(graphics);                // ledger_tag_graphics_footprint
        b.putLong(graphicsCompressed);      // ledger_tag_graphics_footprint_compressed
        b.putLong(999L);                    // ledger_tag_graphics_nofootprint
        b.putLong(998L);                    // ledger_tag_graphics_nofootprint_compressed
        for (int i = 0; i < 4; i++) {       // neural (4)
            b.putLong(5_000L + i);
        }
        assertThat(b.position()).isEqualTo(336);
        return b.array();
    }

    @Test
    void theGraphicsLedgersAreReadAtTheirRev3Offsets() throws Exception {
        byte[] s = rev3(150 * GIB, 140 * GIB, 2 * GIB, 16384);
        TaskVmInfo.Reading r = TaskVmInfo.decode(s, 84);
        assertThat(r.physFootprint()).isEqualTo(150 * GIB);
        assertThat(r.graphicsBytes()).isEqualTo(142 * GIB);
        assertThat(r.pageSize()).isEqualTo(16384);
        TaskVmInfo.checkLayout(s, 84);
        // A kernel that answers rev2 only (42 words): no ledgers, absent.
        assertThat(TaskVmInfo.decode(s, 42)).isNull();
        // A ledger the kernel does not keep reads negative: absent, not a negative size.
        assertThat(TaskVmInfo.decode(rev3(GIB, -1, 0, 16384), 84)).isNull();
    }

    @Test
    void theSelfCheckRejectsAStructNotLaidOutAsDecoded() {
        assertThatThrownBy(() -> TaskVmInfo.checkLayout(rev3(GIB, 0, 0, 16384), 42))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("42 words");
        assertThatThrownBy(() -> TaskVmInfo.checkLayout(rev3(GIB, 0, 0, 12345), 84))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("page_size");
        // Graphics larger than the footprint it is part of: the offsets are wrong.
        assertThatThrownBy(() -> TaskVmInfo.checkLayout(rev3(GIB, 2 * GIB, 0, 16384), 84))
                .isInstanceOf(NativeProbe.WrongLayout.class).hasMessageContaining("footprint");
    }

    @Test
    void eachEngineSumsItsProcessTreeAndAnUnreadableEngineIsAbsent() throws Exception {
        // Ollama: the server (pid 100, 0.25 GiB graphics) and two runners (101: 40 GiB + 1 GiB compressed;
        // 102: 20 GiB). mlx_lm (pid 200): 60 GiB. llama-server (pid 300): another user's process, refused.
        Map<Integer, byte[]> tasks = new HashMap<>();
        tasks.put(100, rev3(GIB, GIB / 4, 0, 16384));
        tasks.put(101, rev3(45 * GIB, 40 * GIB, GIB, 16384));
        tasks.put(102, rev3(21 * GIB, 20 * GIB, 0, 16384));
        tasks.put(200, rev3(62 * GIB, 60 * GIB, 0, 16384));
        TaskVmSource src = pid -> tasks.containsKey(pid) ? new TaskVmSource.Raw(tasks.get(pid), 84) : null;
        Map<String, Set<Integer>> pids = Map.of("ollama", Set.of(100, 101, 102), "mlx", Set.of(200), "llama", Set.of(300));
        MacEngineGpuMemorySampler s = new MacEngineGpuMemorySampler(Lazy.of("task", () -> src), () -> pids);
        List<Point> p = s.sample();
        new MetricHub().publish("host/engine_gpu_memory", p);
        Map<String, Double> by = new HashMap<>();
        p.forEach(x -> by.put(x.attributes().get(AttrKeys.ENGINE), x.value()));
        assertThat(by).containsOnlyKeys("ollama", "mlx");
        assertThat(by.get("ollama")).isEqualTo((double) (GIB / 4 + 41 * GIB + 20 * GIB));
        assertThat(by.get("mlx")).isEqualTo((double) (60 * GIB));
        // No engine running: nothing, and the native source is not even opened.
        assertThat(new MacEngineGpuMemorySampler(Lazy.of("task", () -> {
            throw new AssertionError("opened");
        }), Map::of).sample()).isEmpty();
    }

    @Test
    void theGpuHeadroomRuleReadsTheEnginesGraphicsMemory() {
        // A model estimated at 60 GiB (weights 50 + KV 10) against a 96 GiB limit: share 0.625. The engines'
        // processes really hold 90 GiB of graphics memory (a second engine): share 90 / 96 = 0.9375, over 0.9.
        List<Point> points = new ArrayList<>();
        points.add(HostMetrics.processGpuMemory("ollama", 61.25 * GIB));
        points.add(HostMetrics.processGpuMemory("mlx", 28.75 * GIB));
        HostSnapshot snap = new HostSnapshot(Instant.EPOCH, points, Map.of());
        assertThat(snap.enginesGpuMemory()).isEqualTo(90.0 * GIB);
        double perToken = 10.0 * GIB / 32_768;
        KvPlan.Headroom estimate = KvPlan.headroom(perToken, 50.0 * GIB, false, 32_768L, 96.0 * GIB, 200.0 * GIB);
        assertThat(estimate.gpuShare()).isCloseTo(0.625, within(1e-9));
        KvPlan.Headroom measured = KvPlan.headroom(perToken, 50.0 * GIB, false, 32_768L, 96.0 * GIB, 200.0 * GIB,
                snap.enginesGpuMemory());
        assertThat(measured.gpuShare()).isCloseTo(0.9375, within(1e-9));
        assertThat(measured.gpuLeftBytes()).isCloseTo(6.0 * GIB, within(1.0));
        // Less graphics memory than the estimate (a context not filled yet): the estimate stands.
        assertThat(KvPlan.headroom(perToken, 50.0 * GIB, false, 32_768L, 96.0 * GIB, 200.0 * GIB, 20.0 * GIB).gpuShare())
                .isCloseTo(0.625, within(1e-9));
        // No graphics figure (Linux, or unreadable): unchanged.
        assertThat(new HostSnapshot(Instant.EPOCH, List.of(), Map.of()).enginesGpuMemory()).isNull();
    }
}
