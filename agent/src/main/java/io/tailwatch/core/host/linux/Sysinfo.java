package io.tailwatch.core.host.linux;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What {@code sysinfo(2)} returns, decoded from the raw {@code struct sysinfo} (linux/sysinfo.h): long
 * uptime; unsigned long loads[3]; unsigned long totalram, freeram, sharedram, bufferram, totalswap,
 * freeswap; unsigned short procs, pad; unsigned long totalhigh, freehigh; unsigned int mem_unit. With
 * {@code L} = sizeof(long), the fields sit at 0, L..3L, 4L..9L, 10L (procs), 11L, 12L and 13L (the
 * shorts take 4 bytes, padded to the next long, on both 32- and 64-bit ABIs). Sizes are in bytes here
 * (the kernel's counts times mem_unit); loads are the kernel's fixed point over 2^16 (SI_LOAD_SHIFT).
 */
public record Sysinfo(long totalRam, long freeRam, long bufferRam, long totalSwap, long freeSwap, double[] loads) {
    /** sizeof(struct sysinfo) on 64-bit Linux; a 32-bit one is smaller. */
    public static final int SIZE = 112;

    public static Sysinfo decode(ByteBuffer raw, int longSize, ByteOrder order) {
        ByteBuffer b = raw.duplicate().order(order);
        long unit = Integer.toUnsignedLong(b.getInt(13 * longSize));
        if (unit == 0) {
            unit = 1; // kernels before 2.3.23 had no mem_unit: sizes in bytes
        }
        double[] loads = new double[3];
        for (int i = 0; i < 3; i++) {
            loads[i] = word(b, (1 + i) * longSize, longSize) / 65536.0;
        }
        return new Sysinfo(word(b, 4 * longSize, longSize) * unit, word(b, 5 * longSize, longSize) * unit,
                word(b, 7 * longSize, longSize) * unit, word(b, 8 * longSize, longSize) * unit,
                word(b, 9 * longSize, longSize) * unit, loads);
    }

    private static long word(ByteBuffer b, int offset, int longSize) {
        return longSize == 8 ? b.getLong(offset) : Integer.toUnsignedLong(b.getInt(offset));
    }
}
