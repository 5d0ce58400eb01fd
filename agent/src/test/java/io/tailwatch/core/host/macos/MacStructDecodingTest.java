package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class MacStructDecodingTest {

    @Test
    void vmStatistics64IsDecodedAtTheHeaderOffsets() throws IOException {
        byte[] bytes = XnuStructs.vmStatisticsOfCapture();
        assertThat(bytes).hasSize(VmStatistics64.SIZE);
        VmStatistics64 vm = VmStatistics64.decode(bytes);
        assertThat(vm.freeCount()).isEqualTo(4910);
        assertThat(vm.activeCount()).isEqualTo(186123);
        assertThat(vm.inactiveCount()).isEqualTo(184925);
        assertThat(vm.wireCount()).isEqualTo(198107);
        assertThat(vm.pageins()).isEqualTo(86971767L);
        assertThat(vm.pageouts()).isEqualTo(1809283L);
        assertThat(vm.purgeableCount()).isEqualTo(24);
        assertThat(vm.speculativeCount()).isEqualTo(681);
        assertThat(vm.decompressions()).isEqualTo(950112330L);
        assertThat(vm.compressions()).isEqualTo(1066060384L);
        assertThat(vm.swapins()).isEqualTo(4693446L);
        assertThat(vm.swapouts()).isEqualTo(6168528L);
        assertThat(vm.compressorPageCount()).isEqualTo(436782);
        assertThat(vm.throttledCount()).isZero();
        assertThat(vm.externalPageCount()).isEqualTo(133056);
        assertThat(vm.internalPageCount()).isEqualTo(238673);
        assertThat(vm.totalUncompressedPagesInCompressor()).isEqualTo(1736474L);
    }

    @Test
    void pageCountsAreUnsigned32Bit() throws IOException {
        VmStatistics64 vm = VmStatistics64.decode(XnuStructs.vmStatistics64(0xFFFF_FFF0L, 1, 2, 3, 0, 0, 0, 0, 0, 0));
        assertThat(vm.freeCount()).isEqualTo(0xFFFF_FFF0L);
    }

    @Test
    void shortVmStatisticsBufferIsRefusedWithItsSize() {
        byte[] bytes = Arrays.copyOf(XnuStructs.vmStatisticsOfCapture(), 80);
        assertThatThrownBy(() -> VmStatistics64.decode(bytes)).isInstanceOf(IOException.class)
                .hasMessageContaining("vm_statistics64").hasMessageContaining("80");
    }

    @Test
    void xswUsageIsDecoded() throws IOException {
        long mib = 1L << 20;
        XswUsage x = XswUsage.decode(XnuStructs.xswUsage(4096 * mib, 1352 * mib + mib / 2, 2743 * mib + mib / 2, 16384, true));
        assertThat(x.total()).isEqualTo(4096 * mib);
        assertThat(x.used()).isEqualTo(2743 * mib + mib / 2);
        assertThat(x.avail()).isEqualTo(1352 * mib + mib / 2);
        assertThat(x.pageSize()).isEqualTo(16384);
        assertThat(x.encrypted()).isTrue();
        assertThat(XnuStructs.xswUsage(0, 0, 0, 16384, false)).hasSize(XswUsage.SIZE);
    }

    @Test
    void xswUsageWithUsedAboveTotalIsRefused() {
        assertThatThrownBy(() -> XswUsage.decode(XnuStructs.xswUsage(100, 0, 200, 16384, true)))
                .hasMessageContaining("vm.swapusage").hasMessageContaining("used=200");
        assertThatThrownBy(() -> XswUsage.decode(new byte[12])).hasMessageContaining("32-byte");
    }

    @Test
    void rusageInfoV2GivesResidentSizeAndFootprint() throws IOException {
        byte[] bytes = XnuStructs.rusageInfoV2(5_000_000_000L, 7_000_000_000L);
        assertThat(bytes).hasSize(RusageInfoV2.SIZE);
        RusageInfoV2 r = RusageInfoV2.decode(bytes);
        assertThat(r.residentSize()).isEqualTo(5_000_000_000L);
        assertThat(r.physFootprint()).isEqualTo(7_000_000_000L);
        assertThatThrownBy(() -> RusageInfoV2.decode(new byte[40])).hasMessageContaining("rusage_info_v2");
    }

    @Test
    void procArgs2GivesArgumentsAndNeverTheEnvironment() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(3).array());
        out.write("/opt/homebrew/bin/python3.12".getBytes(StandardCharsets.UTF_8));
        out.write(new byte[5]);
        for (String s : new String[] {"python3", "-m", "mlx_lm.server", "SECRET_TOKEN=abc"}) {
            out.write(s.getBytes(StandardCharsets.UTF_8));
            out.write(0);
        }
        byte[] b = out.toByteArray();
        ProcArgs a = ProcArgs.decode(b, b.length);
        assertThat(a.executable()).isEqualTo("/opt/homebrew/bin/python3.12");
        assertThat(a.args()).containsExactly("python3", "-m", "mlx_lm.server");
        assertThat(ProcArgs.decode(new byte[2], 2).args()).isEmpty();
    }

    @Test
    void procArgsDecodesAtMostTheBoundedArgumentsOfAPrefix() {
        // argc = 100000, then the executable path, padding and arguments: only a 4 KiB prefix is handed over.
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(100_000).array());
        b.writeBytes("/usr/bin/python3\0\0\0\0".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        for (int i = 0; i < 100_000; i++) {
            b.writeBytes(("arg" + i + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        byte[] all = b.toByteArray();
        byte[] prefix = java.util.Arrays.copyOf(all, 4096);
        ProcArgs a = ProcArgs.decode(prefix, prefix.length);
        assertThat(a.executable()).isEqualTo("/usr/bin/python3");
        assertThat(a.args()).hasSize(io.tailwatch.core.host.ProcessTable.MAX_ARGS);
        assertThat(a.args().get(0)).isEqualTo("arg0");
    }

    /**
     * A line the full prefix cuts (4 + 1024 + MAX_ARG_BYTES bytes, as the table reads it) inside a long argument:
     * the cut argument is kept as far as it goes, so the line reads as cut and its value as possibly short, and
     * flags past the cut are not taken for absent.
     */
    @Test
    void aLineThePrefixCutsReadsAsCut() {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(8).array());
        b.writeBytes(("/usr/bin/python3\0\0\0\0python3\0-m\0mlx_lm.server\0--chat-template\0" + "x".repeat(6_000)
                + "\0--model\0mlx-community/Qwen3-8B-4bit\0").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        byte[] all = b.toByteArray();
        assertThat(ProcArgs.decode(all, all.length).args()).endsWith("--model", "mlx-community/Qwen3-8B-4bit");
        int prefix = 4 + 1024 + io.tailwatch.core.host.ProcessTable.MAX_ARG_BYTES;
        java.util.List<String> cut = ProcArgs.decode(all, prefix).args();
        assertThat(cut).startsWith("python3", "-m", "mlx_lm.server", "--chat-template").hasSize(5);
        assertThat(cut.get(4)).matches("x+").hasSizeLessThan(6_000);
        assertThat(io.tailwatch.core.host.ProcessTable.mayBeCut(cut)).isTrue();
        assertThat(io.tailwatch.core.host.MlxLmServerArgs.servedModel(cut)).isNull();
    }
}
