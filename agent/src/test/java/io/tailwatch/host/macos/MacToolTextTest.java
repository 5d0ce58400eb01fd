package io.tailwatch.host.macos;

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

    @Test
    void memoryPressureFreePercentage() throws IOException {
        assertThat(MacToolText.memoryPressureFreePercent(MEMORY_PRESSURE)).isEqualTo(37);
        assertThatThrownBy(() -> MacToolText.memoryPressureFreePercent("nothing")).hasMessageContaining("memory_pressure");
    }
}
