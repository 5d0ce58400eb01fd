package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The captured outputs of docs/macos.md. */
class MacToolTextTest {
    static final String PMSET_APPLE_SILICON = """
            Note: No thermal warning level has been recorded
            Note: No performance warning level has been recorded
            Note: No CPU power status has been recorded
            """;
    static final String PMSET_INTEL = "Note: No thermal warning level has been recorded\n"
            + "Note: No performance warning level has been recorded\n"
            + "2021-05-02 11:51:57 +0800 CPU Power notify\n"
            + "\tCPU_Scheduler_Limit \t= 100\n"
            + "\tCPU_Available_CPUs \t= 12\n"
            + "\tCPU_Speed_Limit \t= 100\n";
    static final String SWAP_DOT = "vm.swapusage: total = 4096.00M  used = 2743.50M  free = 1352.50M  (encrypted)\n";
    static final String SWAP_COMMA = "vm.swapusage: total = 1024,00M  used = 379,25M  free = 644,75M  (encrypted)\n";
    static final String VM_STAT = """
            Mach Virtual Memory Statistics: (page size of 16384 bytes)
            Pages free:                                     4229.
            Pages active:                                 186123.
            Pages inactive:                               184925.
            Pages speculative:                               681.
            Pages throttled:                                   0.
            Pages wired down:                             198107.
            Pages purgeable:                                  24.
            "Translation faults":                     6085905557.
            Pages copy-on-write:                       391952527.
            Pages zero filled:                        2318477816.
            Pages reactivated:                        1417078090.
            Pages purged:                               61860720.
            File-backed pages:                            133056.
            Anonymous pages:                              238673.
            Pages stored in compressor:                  1736474.
            Pages occupied by compressor:                 436782.
            Decompressions:                            950112330.
            Compressions:                             1066060384.
            Pageins:                                    86971767.
            Pageouts:                                    1809283.
            Swapins:                                     4693446.
            Swapouts:                                    6168528.
            """;
    static final String MEMORY_PRESSURE = """
            The system has 17179869184 (1048576 pages with a page size of 16384).

            Stats:\s
            Pages free: 4229\s
            Pages purgeable: 24\s
            Pages purged: 61860720\s

            Swap I/O:
            Swapins: 4693446\s
            Swapouts: 6168528\s

            Page Q counts:
            Pages active: 186123\s
            Pages inactive: 184925\s
            Pages speculative: 681\s
            Pages throttled: 0\s
            Pages wired down: 198107\s

            Compressor Stats:
            Pages used by compressor: 436782\s
            Pages decompressed: 950112330\s
            Pages compressed: 1066060384\s

            File I/O:
            Pageins: 86971767\s
            Pageouts: 1809283\s

            System-wide memory free percentage: 37%
            """;

    @Test
    void swapUsageWithADecimalPoint() throws IOException {
        MacToolText.SwapUsage s = MacToolText.swapUsage(SWAP_DOT);
        long mib = 1L << 20;
        assertThat(s.total()).isEqualTo(4096 * mib);
        assertThat(s.used()).isEqualTo(2743 * mib + mib / 2);
        assertThat(s.free()).isEqualTo(1352 * mib + mib / 2);
        assertThat(s.encrypted()).isTrue();
    }

    @Test
    void swapUsageWithADecimalComma() throws IOException {
        MacToolText.SwapUsage s = MacToolText.swapUsage(SWAP_COMMA);
        long mib = 1L << 20;
        assertThat(s.total()).isEqualTo(1024 * mib);
        assertThat(s.used()).isEqualTo(379 * mib + mib / 4);
        assertThat(s.free()).isEqualTo(644 * mib + 3 * mib / 4);
        assertThat(s.used() + s.free()).isEqualTo(s.total());
    }

    @Test
    void swapUsageWithoutFieldsNamesWhatIsMissing() {
        assertThatThrownBy(() -> MacToolText.swapUsage("vm.swapusage: total = 0.00M"))
                .hasMessageContaining("'used ='");
    }

    @Test
    void vmStatPagesAndPageSize() throws IOException {
        MacToolText.VmStat v = MacToolText.vmStat(VM_STAT);
        assertThat(v.pageSize()).isEqualTo(16384);
        assertThat(v.pages()).hasSize(22);
        assertThat(v.pages().get("Pages free")).isEqualTo(4229);
        assertThat(v.pages().get("Translation faults")).isEqualTo(6085905557L);
        assertThat(v.pages().get("Pages occupied by compressor")).isEqualTo(436782);
        assertThat(v.bytes("File-backed pages")).isEqualTo(133056L * 16384);
        assertThat(v.bytes("no such line")).isNull();
    }

    @Test
    void vmStatRejectsGarbageNamingTheLine() {
        assertThatThrownBy(() -> MacToolText.vmStat("Mach Virtual Memory Statistics: (page size of 4096 bytes)\nPages free: lots\n"))
                .hasMessageContaining("line 2");
        assertThatThrownBy(() -> MacToolText.vmStat("Pages free: 1.\n")).hasMessageContaining("page size");
    }

    @Test
    void pmsetThermBothForms() {
        assertThat(MacToolText.pmsetTherm(PMSET_APPLE_SILICON).cpuPowerStatus()).isEmpty();
        assertThat(MacToolText.pmsetTherm(PMSET_INTEL).cpuPowerStatus())
                .containsEntry("CPU_Speed_Limit", 100L)
                .containsEntry("CPU_Scheduler_Limit", 100L)
                .containsEntry("CPU_Available_CPUs", 12L);
    }

    /** notifyutil -g prints the name and the state on one line. */
    static final String NOTIFYUTIL_THERMAL = "com.apple.system.thermalpressurelevel 0\n";

    /** footprint -f bytes PID: the process header line, then the table by category. */
    static final String FOOTPRINT_OLLAMA = """
            ======================================================================
            ollama [4242]: 64-bit    Footprint: 1512243200 B (16384 bytes per page)
            ======================================================================

                     Dirty       Clean  Reclaimable    Regions    Category
                       ---         ---          ---        ---    ---
                1401946112           0            0         98    MALLOC_LARGE
                  62914560     8388608            0        211    untagged (VM_ALLOCATE)
                  47382528   240123904            0        340    mapped file
                       ---         ---          ---        ---    ---
                1512243200   248512512            0        649    TOTAL
            """;

    /** sudo powermetrics --samplers cpu_power,gpu_power -i 1000 -n 1 on an M1 Pro (macOS 14), abridged. */
    static final String POWERMETRICS_M1_PRO = """
            Machine model: MacBookPro18,3
            OS version: 23G93
            Boot arguments:\s
            Boot time: Mon Aug 12 09:11:05 2024



            *** Sampled system activity (Mon Aug 12 10:02:11 2024 +0200) (1004.37ms elapsed) ***


            **** Processor usage ****

            E-Cluster HW active frequency: 1266 MHz
            E-Cluster HW active residency:  34.99% (600 MHz:   0% 972 MHz:  48% 1332 MHz:  16% 1704 MHz:  13% 2064 MHz:  23%)
            E-Cluster idle residency:  65.01%
            CPU 0 frequency: 1395 MHz
            CPU 0 active residency:  22.82% (600 MHz:   0% 972 MHz: 9.1% 1332 MHz: 4.3% 1704 MHz: 3.4% 2064 MHz: 6.0%)
            CPU 0 idle residency:  77.18%
            P0-Cluster HW active frequency: 1032 MHz
            P0-Cluster HW active residency:  11.26% (600 MHz:  61% 828 MHz: .52% 1056 MHz: 9.1% 1296 MHz: 6.2%)
            P0-Cluster idle residency:  88.74%

            CPU Power: 1123 mW
            GPU Power: 24 mW
            ANE Power: 0 mW
            Combined Power (CPU + GPU + ANE): 1147 mW

            **** GPU usage ****

            GPU HW active frequency: 389 MHz
            GPU HW active residency:   2.71% (389 MHz: 2.7% 486 MHz:   0% 648 MHz:   0% 778 MHz:   0% 972 MHz:   0% 1296 MHz:   0%)
            GPU SW requested state: (P1 :  99% P2 :   0% P3 :   0% P4 :   0% P5 :   0% P6 :   0%)
            GPU idle residency:  97.29%
            GPU Power: 24 mW
            """;

    @Test
    void notifyutilThermalState() throws IOException {
        assertThat(MacToolText.notifyState(NOTIFYUTIL_THERMAL, "com.apple.system.thermalpressurelevel")).isZero();
        assertThat(MacToolText.notifyState("com.apple.system.thermalpressurelevel 2", "com.apple.system.thermalpressurelevel"))
                .isEqualTo(2);
        assertThatThrownBy(() -> MacToolText.notifyState("", "com.apple.system.thermalpressurelevel"))
                .hasMessageContaining("thermalpressurelevel");
    }

    @Test
    void footprintHeaderLine() throws IOException {
        assertThat(MacToolText.footprintBytes(FOOTPRINT_OLLAMA, 4242)).isEqualTo(1_512_243_200L);
        // The formatted default: 1442 MB = 1442 x 1048576 = 1,512,046,592 bytes.
        assertThat(MacToolText.footprintBytes("ollama [4242]: 64-bit    Footprint: 1442 MB (16384 bytes per page)", 4242))
                .isEqualTo(1_512_046_592L);
        assertThatThrownBy(() -> MacToolText.footprintBytes(FOOTPRINT_OLLAMA, 99)).hasMessageContaining("[99]");
    }

    @Test
    void powermetricsRailsAndGpuFrequency() throws IOException {
        MacToolText.PowerMetrics pm = MacToolText.powermetrics(POWERMETRICS_M1_PRO);
        // 1123 mW, 24 mW, 0 mW -> watts; the GPU section repeats "GPU Power" with the same value.
        assertThat(pm.wattsByRail()).containsEntry("cpu", 1.123).containsEntry("gpu", 0.024).containsEntry("ane", 0.0)
                .hasSize(3);
        assertThat(pm.gpuHz()).isEqualTo(389e6);
        assertThat(MacToolText.powermetrics("CPU Power: 5 mW\nGPU HW active frequency: 0 MHz\n").gpuHz()).isNull();
        assertThatThrownBy(() -> MacToolText.powermetrics("powermetrics must be invoked as the superuser\n"))
                .hasMessageContaining("CPU Power");
    }

    @Test
    void memoryPressureFreePercentage() throws IOException {
        assertThat(MacToolText.memoryPressureFreePercent(MEMORY_PRESSURE)).isEqualTo(37);
        assertThatThrownBy(() -> MacToolText.memoryPressureFreePercent("nothing")).hasMessageContaining("memory_pressure");
    }
}
