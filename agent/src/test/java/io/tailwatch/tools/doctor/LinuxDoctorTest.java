package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.linux.CpuIoPressureSampler;
import io.tailwatch.core.host.linux.CpuStatSampler;
import io.tailwatch.core.host.linux.LoadAverageSampler;
import io.tailwatch.core.host.linux.MemorySampler;
import io.tailwatch.core.host.linux.PagingSampler;
import io.tailwatch.core.host.linux.PressureSampler;
import io.tailwatch.core.host.linux.SwapSampler;
import io.tailwatch.core.host.linux.Sysinfo;
import io.tailwatch.metrics.Point;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linux doctor on a procfs fixture the samplers read, against the independent paths' output for the
 * same kernel state: free -b -w and vmstat -s as procps-ng 4.0.2 prints them, and a struct sysinfo laid
 * out per linux/sysinfo.h. The expected tool figures are worked out from the meminfo below by hand
 * (kB x 1024; cache = Cached + SReclaimable).
 */
class LinuxDoctorTest {
    @TempDir
    Path proc;

    /** A 16 GiB host: Buffers 40 MiB and SReclaimable 48 MiB, both under the old 64 MiB floor. */
    static final String MEMINFO = """
            MemTotal:       16384000 kB
            MemFree:         1200000 kB
            MemAvailable:    9000000 kB
            Buffers:           40960 kB
            Cached:          7000000 kB
            SwapCached:            0 kB
            SwapTotal:       2097148 kB
            SwapFree:        2000000 kB
            SReclaimable:      49152 kB
            """;
    // total 16384000*1024 = 16777216000; used = (16384000-9000000)*1024 = 7561216000; free 1228800000;
    // buffers 41943040; cache (7000000+49152)*1024 = 7218331648; available 9216000000.
    // swap total 2147479552, free 2048000000, used 99479552.
    static final String FREE = """
                           total        used        free      shared     buffers       cache   available
            Mem:     16777216000  7561216000  1228800000    10485760    41943040  7218331648  9216000000
            Swap:     2147479552    99479552  2048000000
            """;
    static final String VMSTAT = """
                 16384000 K total memory
                  7384000 K used memory
                       12 pages swapped in
                       34 pages swapped out
            """;
    static final String STAT1 = "cpu  1000 100 500 8000 200 50 50 100 0 0\n";
    static final String STAT2 = "cpu  1600 150 700 8900 300 100 100 200 0 0\n";
    static final String PSI_MEMORY = "some avg10=1.50 avg60=0.50 avg300=0.10 total=4000000\nfull avg10=0.50 avg60=0.20 avg300=0.05 total=1000000\n";

    /** struct sysinfo on x86-64 (8-byte longs, mem_unit 1 as Linux sets it): the same state. */
    static Sysinfo sysinfo() {
        ByteBuffer b = ByteBuffer.allocate(Sysinfo.SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(0, 12345);                       // uptime
        b.putLong(8, (long) (0.52 * 65536));       // loads[0]
        b.putLong(16, (long) (0.58 * 65536));
        b.putLong(24, (long) (0.59 * 65536));
        b.putLong(32, 16777216000L);               // totalram
        b.putLong(40, 1228800000L);                // freeram
        b.putLong(48, 10485760L);                  // sharedram
        b.putLong(56, 41943040L);                  // bufferram
        b.putLong(64, 2147479552L);                // totalswap
        b.putLong(72, 2048000000L);                // freeswap
        b.putShort(80, (short) 400);               // procs
        b.putInt(104, 1);                          // mem_unit
        return Sysinfo.decode(b, 8, ByteOrder.LITTLE_ENDIAN);
    }

    private HostSnapshot sample(String meminfo) throws Exception {
        Files.writeString(proc.resolve("meminfo"), meminfo);
        Files.writeString(proc.resolve("vmstat"), "nr_free_pages 300000\npswpin 12\npswpout 34\n");
        Files.writeString(proc.resolve("loadavg"), "0.52 0.58 0.59 2/418 12345\n");
        Files.createDirectories(proc.resolve("pressure"));
        Files.writeString(proc.resolve("pressure/memory"), PSI_MEMORY);
        Files.writeString(proc.resolve("stat"), STAT1);
        List<Sampler> samplers = List.of(new MemorySampler(proc), new SwapSampler(proc), new PagingSampler(proc),
                new PressureSampler(proc), CpuIoPressureSampler.cpu(proc), new LoadAverageSampler(proc),
                new CpuStatSampler(proc));
        for (Sampler s : samplers) {
            s.sample();
        }
        Files.writeString(proc.resolve("stat"), STAT2);
        List<Point> points = new ArrayList<>();
        for (Sampler s : samplers) {
            points.addAll(s.sample());
        }
        return new HostSnapshot(Instant.EPOCH, points, Map.of());
    }

    private static LinuxReads reads() {
        return new LinuxReads(FREE, null, VMSTAT, null, sysinfo(), null, STAT2, Map.of("memory", PSI_MEMORY));
    }

    private List<Check> doctor(String meminfo) throws Exception {
        return LinuxDoctor.checks(sample(meminfo), STAT1, STAT1, reads(), reads());
    }

    private static List<String> failed(List<Check> checks) {
        return checks.stream().filter(c -> c.verdict().failed()).map(c -> c.signal() + " vs " + c.tool()).toList();
    }

    @Test
    void aCorrectReadingPassesEveryCheck() throws Exception {
        List<Check> checks = doctor(MEMINFO);
        assertThat(failed(checks)).isEmpty();
        assertThat(checks).filteredOn(c -> c.verdict() == Check.Verdict.AGREE).extracting(c -> c.signal() + " vs " + c.tool())
                .contains("system.memory.usage{buffers} vs free -b -w (Mem buffers)",
                        "system.memory.usage{cached} vs free -b -w (Mem cache = Cached + SReclaimable)",
                        "system.memory.usage{free} vs sysinfo(2) (freeram)",
                        "system.paging.usage{free} vs sysinfo(2) (freeswap)",
                        "tailwatch.cpu.load_average{avg1} vs sysinfo(2) (loads[0] / 65536)",
                        "system.cpu.utilization{user} vs /proc/stat read before and after each sample",
                        "tailwatch.memory.pressure.stall.time{full} vs /proc/pressure/memory (full total / 1e6)",
                        "system.paging.operations{out} vs vmstat -s (pages swapped out)");
    }

    @Test
    void buffersReadAsZeroFails() throws Exception {
        assertThat(failed(doctor(MEMINFO.replace("Buffers:           40960 kB\n", ""))))
                .contains("system.memory.usage{buffers} vs free -b -w (Mem buffers)",
                        "system.memory.usage{buffers} vs sysinfo(2) (bufferram)");
    }

    @Test
    void sReclaimableReadAsZeroFails() throws Exception {
        assertThat(failed(doctor(MEMINFO.replace("SReclaimable:      49152 kB\n", ""))))
                .containsExactly("system.memory.usage{cached} vs free -b -w (Mem cache = Cached + SReclaimable)");
    }

    @Test
    void memFreeFourPercentLowFails() throws Exception {
        // 1200000 kB x 0.96 = 1152000 kB
        assertThat(failed(doctor(MEMINFO.replace("MemFree:         1200000 kB", "MemFree:         1152000 kB"))))
                .containsExactlyInAnyOrder("system.memory.usage{free} vs free -b -w (Mem free)",
                        "system.memory.usage{free} vs sysinfo(2) (freeram)");
    }

    @Test
    void theToleranceIsWhatMovedBetweenTheDoctorsOwnReads() {
        // Free memory moved 8 MiB between the reads: a sample 12 MiB outside them is within 8 + 1 MiB? No.
        double mib = 1 << 20;
        assertThat(LinuxDoctor.bracket("f", 1000 * mib, "t", 1000 * mib, 1008 * mib, LinuxDoctor.MEMORY_FLOOR, "B").verdict())
                .isEqualTo(Check.Verdict.AGREE);
        assertThat(LinuxDoctor.bracket("f", 1016 * mib, "t", 1000 * mib, 1008 * mib, LinuxDoctor.MEMORY_FLOOR, "B").verdict())
                .isEqualTo(Check.Verdict.AGREE);
        assertThat(LinuxDoctor.bracket("f", 1020 * mib, "t", 1000 * mib, 1008 * mib, LinuxDoctor.MEMORY_FLOOR, "B").verdict())
                .isEqualTo(Check.Verdict.DISAGREE);
        // Unmoved: only the floor.
        assertThat(LinuxDoctor.bracket("f", 1002 * mib, "t", 1000 * mib, 1000 * mib, LinuxDoctor.MEMORY_FLOOR, "B").verdict())
                .isEqualTo(Check.Verdict.DISAGREE);
        // A counter lies between the two reads.
        assertThat(LinuxDoctor.counter("c", 15.0, "t", 10.0, 20.0, "").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(LinuxDoctor.counter("c", 21.0, "t", 10.0, 20.0, "").verdict()).isEqualTo(Check.Verdict.DISAGREE);
    }

    @Test
    void cpuUtilizationMustLieWithinWhatTheBracketingReadsAllow() throws Exception {
        HostSnapshot s = sample(MEMINFO);
        // The sampler's utilization is exactly (STAT2 - STAT1); reads that bracket it loosely still agree.
        String looseBefore = "cpu  990 100 500 7990 200 50 50 100 0 0\n";
        String looseAfter = "cpu  1610 150 700 8910 300 100 100 200 0 0\n";
        LinuxReads after = new LinuxReads(FREE, null, VMSTAT, null, sysinfo(), null, looseAfter, Map.of("memory", PSI_MEMORY));
        assertThat(failed(LinuxDoctor.checks(s, looseBefore, STAT1, reads(), after))).isEmpty();
        // Reads showing a different history (user time twice as large) do not.
        String other = "cpu  2200 150 700 8900 300 100 100 200 0 0\n";
        LinuxReads otherAfter = new LinuxReads(FREE, null, VMSTAT, null, sysinfo(), null, other, Map.of("memory", PSI_MEMORY));
        LinuxReads otherBefore = new LinuxReads(FREE, null, VMSTAT, null, sysinfo(), null, other, Map.of("memory", PSI_MEMORY));
        assertThat(failed(LinuxDoctor.checks(s, STAT1, STAT1, otherBefore, otherAfter)))
                .contains("system.cpu.utilization{user} vs /proc/stat read before and after each sample");
    }

    @Test
    void sysinfoIsDecodedPerTheHeaderOnBothWordSizes() {
        Sysinfo s = sysinfo();
        assertThat(s.totalRam()).isEqualTo(16777216000L);
        assertThat(s.bufferRam()).isEqualTo(41943040L);
        assertThat(s.freeSwap()).isEqualTo(2048000000L);
        assertThat(s.loads()[0]).isCloseTo(0.52, org.assertj.core.data.Offset.offset(1e-4));
        // i386: 4-byte longs, mem_unit 4096 (a highmem machine counts pages), loads at 4..12, mem_unit at 52.
        ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(4, 65536);
        b.putInt(16, 262144);   // totalram pages
        b.putInt(20, 1000);     // freeram
        b.putInt(28, 10);       // bufferram
        b.putInt(52, 4096);
        Sysinfo i386 = Sysinfo.decode(b, 4, ByteOrder.LITTLE_ENDIAN);
        assertThat(i386.totalRam()).isEqualTo(262144L * 4096);
        assertThat(i386.freeRam()).isEqualTo(1000L * 4096);
        assertThat(i386.bufferRam()).isEqualTo(40960L);
        assertThat(i386.loads()[0]).isEqualTo(1.0);
    }
}
