package io.tailwatch.host.macos;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.platform.mac.SystemB;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** sysctl and host_statistics64 through jna-platform's SystemB mapping (libSystem). */
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
            IntByReference size = new IntByReference(8);
            if (sys.sysctlbyname(name, m, size, null, 0) != 0) {
                throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
            }
            return switch (size.getValue()) {
                case 4 -> Integer.toUnsignedLong(m.getInt(0));
                case 8 -> m.getLong(0);
                default -> throw new IOException("sysctl " + name + ": unexpected size " + size.getValue());
            };
        }
    }

    @Override
    public String sysctlString(String name) throws IOException {
        IntByReference size = new IntByReference(0);
        if (sys.sysctlbyname(name, null, size, null, 0) != 0 || size.getValue() <= 0) {
            throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
        }
        int n = Math.min(size.getValue(), 4096);
        try (Memory m = new Memory(n + 1L)) {
            m.clear();
            size.setValue(n);
            if (sys.sysctlbyname(name, m, size, null, 0) != 0) {
                throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
            }
            byte[] b = m.getByteArray(0, size.getValue());
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
            IntByReference len = new IntByReference(size);
            if (sys.sysctlbyname(name, m, len, null, 0) != 0) {
                throw new IOException("sysctl " + name + " failed (errno " + Native.getLastError() + ")");
            }
            return m.getByteArray(0, Math.min(size, len.getValue()));
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
        // Decode from the bytes the kernel wrote, by the header's offsets, not from JNA's field layout.
        return vm.getPointer().getByteArray(0, vm.size());
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
