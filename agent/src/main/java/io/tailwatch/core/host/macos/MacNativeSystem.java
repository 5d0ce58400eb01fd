package io.tailwatch.core.host.macos;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.SystemB;
import com.sun.jna.platform.unix.LibCAPI.size_t;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * sysctl and host_statistics64 through jna-platform's SystemB mapping (libSystem). Lengths are
 * passed as size_t (8 bytes), never as a 4-byte int the kernel would write past.
 */
public final class MacNativeSystem implements MacSystem {
    /** HOST_VM_INFO64_COUNT: sizeof(vm_statistics64) in integer_t units. */
    private static final int HOST_VM_INFO64_COUNT = VmStatistics64.SIZE / 4;

    private final SystemB sys;
    private final int host;

    private MacNativeSystem() {
        this.sys = SystemB.INSTANCE;
        this.host = sys.mach_host_self();
    }

    /** Loads libSystem; throws (LinkageError) where it does not exist. */
    public static MacNativeSystem open() {
        return new MacNativeSystem();
    }

    @Override
    public long sysctlLong(String name) throws IOException {
        try (Memory m = new Memory(8)) {
            m.clear();
            size_t.ByReference size = new size_t.ByReference(8);
            if (sys.sysctlbyname(name, m, size, null, size_t.ZERO) != 0) {
                throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
            }
            return switch ((int) size.longValue()) {
                case 4 -> Integer.toUnsignedLong(m.getInt(0));
                case 8 -> m.getLong(0);
                default -> throw new IOException("sysctl " + name + ": unexpected size " + size.longValue());
            };
        }
    }

    @Override
    public String sysctlString(String name) throws IOException {
        size_t.ByReference size = new size_t.ByReference(0);
        if (sys.sysctlbyname(name, null, size, null, size_t.ZERO) != 0 || size.longValue() <= 0) {
            throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
        }
        int n = (int) Math.min(size.longValue(), 4096);
        try (Memory m = new Memory(n + 1L)) {
            m.clear();
            size.setValue(n);
            if (sys.sysctlbyname(name, m, size, null, size_t.ZERO) != 0) {
                throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
            }
            byte[] b = m.getByteArray(0, (int) Math.min(n, size.longValue()));
            int len = 0;
            while (len < b.length && b[len] != 0) {
                len++;
            }
            return new String(b, 0, len, StandardCharsets.UTF_8).strip();
        }
    }

    @Override
    public byte[] sysctlStruct(String name, int size) throws IOException {
        try (Memory m = new Memory(size)) {
            m.clear();
            size_t.ByReference len = new size_t.ByReference(size);
            if (sys.sysctlbyname(name, m, len, null, size_t.ZERO) != 0) {
                throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
            }
            return m.getByteArray(0, (int) Math.min(size, len.longValue()));
        }
    }

    @Override
    public byte[] vmStatistics64() throws IOException {
        SystemB.VMStatistics64 vm = new SystemB.VMStatistics64();
        IntByReference count = new IntByReference(HOST_VM_INFO64_COUNT);
        int kr = sys.host_statistics64(host, SystemB.HOST_VM_INFO64, vm, count);
        if (kr != 0) {
            throw new IOException("host_statistics64(HOST_VM_INFO64) failed (kern_return " + kr + ")");
        }
        VmStatistics64.requireFullCount(count.getValue());
        // Decode from the bytes the kernel wrote, by the header's offsets, not from JNA's field layout.
        return vm.getPointer().getByteArray(0, vm.size());
    }

    @Override
    public byte[] processorCpuLoadInfo() throws IOException {
        IntByReference cpus = new IntByReference();
        PointerByReference info = new PointerByReference();
        IntByReference count = new IntByReference();
        int kr = sys.host_processor_info(host, SystemB.PROCESSOR_CPU_LOAD_INFO, cpus, info, count);
        if (kr != 0) {
            throw new IOException("host_processor_info(PROCESSOR_CPU_LOAD_INFO) failed (kern_return " + kr + ")");
        }
        Pointer p = info.getValue();
        // The kernel hands the array over as out-of-line memory in this task, count natural_t long
        // (xnu osfmk/kern/host.c host_processor_info: needed = pcount * icount * sizeof(natural_t),
        // line 1188; *out_array_count = pcount * icount, line 1223): the caller vm_deallocates
        // exactly those bytes, whatever happens next.
        long bytes = Integer.toUnsignedLong(count.getValue()) * 4L;
        try {
            if (p == null) {
                throw new IOException("host_processor_info returned no array");
            }
            long want = (long) cpus.getValue() * ProcessorCpuLoadInfo.STRUCT_SIZE;
            if (want <= 0 || want > bytes || want > (long) ProcessorCpuLoadInfo.MAX_CPUS * ProcessorCpuLoadInfo.STRUCT_SIZE) {
                throw new IOException("host_processor_info: " + cpus.getValue() + " CPUs in " + bytes + " bytes");
            }
            return p.getByteArray(0, (int) want);
        } finally {
            if (p != null) {
                sys.vm_deallocate(sys.mach_task_self(), Pointer.nativeValue(p), bytes);
            }
        }
    }

    @Override
    public long pageSize() throws IOException {
        LongByReference size = new LongByReference();
        if (sys.host_page_size(host, size) == 0 && size.getValue() > 0) {
            return size.getValue();
        }
        return sysctlLong("hw.pagesize");
    }
}
