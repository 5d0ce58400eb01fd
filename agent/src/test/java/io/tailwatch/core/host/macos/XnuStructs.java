package io.tailwatch.core.host.macos;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Test fixtures: native struct bytes written field by field in the order and with the types of the
 * xnu headers (natural alignment, little-endian as on arm64 and x86-64), independent of the
 * decoders' offset constants.
 */
final class XnuStructs {
    private final ByteBuffer b;

    private XnuStructs(int capacity) {
        b = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    XnuStructs u32(long v) {
        align(4);
        b.putInt((int) v);
        return this;
    }

    XnuStructs u64(long v) {
        align(8);
        b.putLong(v);
        return this;
    }

    XnuStructs bytes(int n) {
        b.put(new byte[n]);
        return this;
    }

    private void align(int a) {
        while (b.position() % a != 0) {
            b.put((byte) 0);
        }
    }

    byte[] done() {
        align(8);
        byte[] out = new byte[b.position()];
        b.flip();
        b.get(out);
        return out;
    }

    /**
     * The host_processor_info(PROCESSOR_CPU_LOAD_INFO) array: per CPU one struct
     * processor_cpu_load_info { unsigned int cpu_ticks[CPU_STATE_MAX]; } (mach/processor_info.h),
     * indexed CPU_STATE_USER 0, SYSTEM 1, IDLE 2, NICE 3 (mach/machine.h). Each row: user, system,
     * idle, nice.
     */
    static byte[] cpuLoadInfo(long[]... cpus) {
        XnuStructs x = new XnuStructs(cpus.length * 16);
        for (long[] c : cpus) {
            x.u32(c[0]).u32(c[1]).u32(c[2]).u32(c[3]);
        }
        return x.done();
    }

    /** struct vm_statistics64 (mach/vm_statistics.h), in declaration order. */
    static byte[] vmStatistics64(long free, long active, long inactive, long wire, long purgeable, long speculative,
                                 long compressor, long throttled, long external, long internal) {
        return new XnuStructs(256)
                .u32(free).u32(active).u32(inactive).u32(wire)
                .u64(2318477816L) // zero_fill_count
                .u64(1417078090L) // reactivations
                .u64(86971767L) // pageins
                .u64(1809283L) // pageouts
                .u64(6085905557L) // faults
                .u64(391952527L) // cow_faults
                .u64(0).u64(0) // lookups, hits
                .u64(61860720L) // purges
                .u32(purgeable).u32(speculative)
                .u64(950112330L) // decompressions
                .u64(1066060384L) // compressions
                .u64(4693446L) // swapins
                .u64(6168528L) // swapouts
                .u32(compressor).u32(throttled).u32(external).u32(internal)
                .u64(1736474L) // total_uncompressed_pages_in_compressor
                .done();
    }

    /** The vm_stat capture of docs/macos.md (16 KiB pages) as the kernel's struct. */
    static byte[] vmStatisticsOfCapture() {
        // free_count includes speculative: vm_stat prints free - speculative.
        return vmStatistics64(4229 + 681, 186123, 184925, 198107, 24, 681, 436782, 0, 133056, 238673);
    }

    /** struct xsw_usage (sys/sysctl.h). */
    static byte[] xswUsage(long total, long avail, long used, long pageSize, boolean encrypted) {
        return new XnuStructs(64).u64(total).u64(avail).u64(used).u32(pageSize).u32(encrypted ? 1 : 0).done();
    }

    /** struct rusage_info_v2 (sys/resource.h): uuid[16] then 18 uint64_t fields. */
    static byte[] rusageInfoV2(long residentSize, long physFootprint) {
        XnuStructs s = new XnuStructs(256).bytes(16);
        s.u64(111).u64(222) // ri_user_time, ri_system_time
                .u64(3).u64(4) // ri_pkg_idle_wkups, ri_interrupt_wkups
                .u64(5) // ri_pageins
                .u64(6) // ri_wired_size
                .u64(residentSize).u64(physFootprint)
                .u64(7).u64(8) // ri_proc_start_abstime, ri_proc_exit_abstime
                .u64(9).u64(10).u64(11).u64(12).u64(13).u64(14) // child times, wakeups, pageins, elapsed
                .u64(15).u64(16); // ri_diskio_bytesread, ri_diskio_byteswritten
        return s.done();
    }
}
