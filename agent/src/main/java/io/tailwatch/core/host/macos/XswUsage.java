package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * xnu's {@code struct xsw_usage} (sys/sysctl.h), the value of sysctl {@code vm.swapusage}:
 * u64 xsu_total, u64 xsu_avail, u64 xsu_used, u32 xsu_pagesize, boolean_t xsu_encrypted
 * ({@value #SIZE} bytes). Read as a struct, never as the locale-dependent CLI text.
 */
public record XswUsage(long total, long avail, long used, long pageSize, boolean encrypted) {
    public static final int SIZE = 32;

    public static XswUsage decode(byte[] bytes) throws IOException {
        if (bytes == null || bytes.length < SIZE) {
            throw new IOException("vm.swapusage: expected a " + SIZE + "-byte xsw_usage, got "
                    + (bytes == null ? "none" : bytes.length + " bytes"));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        XswUsage x = new XswUsage(b.getLong(0), b.getLong(8), b.getLong(16), Integer.toUnsignedLong(b.getInt(24)),
                b.getInt(28) != 0);
        if (x.total < 0 || x.used < 0 || x.avail < 0 || x.used > x.total) {
            throw new IOException("vm.swapusage: impossible values total=" + x.total + " used=" + x.used
                    + " avail=" + x.avail);
        }
        return x;
    }
}
