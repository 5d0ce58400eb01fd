package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The counters of xnu's {@code struct vm_statistics64} (mach/vm_statistics.h) that tailwatch uses,
 * decoded from the raw bytes {@code host_statistics64(HOST_VM_INFO64)} fills. The struct is 8-byte
 * aligned: four u32 page counts, nine u64 event counters, two u32 counts, four u64 counters, four
 * u32 counts and one u64 ({@value #SIZE} bytes). Page counts are unsigned 32-bit values.
 */
public record VmStatistics64(long freeCount, long activeCount, long inactiveCount, long wireCount,
                             long pageins, long pageouts, long purgeableCount, long speculativeCount,
                             long decompressions, long compressions, long swapins, long swapouts,
                             long compressorPageCount, long throttledCount, long externalPageCount,
                             long internalPageCount, long totalUncompressedPagesInCompressor) {

    public static final int SIZE = 152;

    static final int FREE = 0;
    static final int ACTIVE = 4;
    static final int INACTIVE = 8;
    static final int WIRE = 12;
    static final int PAGEINS = 32;
    static final int PAGEOUTS = 40;
    static final int PURGEABLE = 88;
    static final int SPECULATIVE = 92;
    static final int DECOMPRESSIONS = 96;
    static final int COMPRESSIONS = 104;
    static final int SWAPINS = 112;
    static final int SWAPOUTS = 120;
    static final int COMPRESSOR_PAGES = 128;
    static final int THROTTLED = 132;
    static final int EXTERNAL = 136;
    static final int INTERNAL = 140;
    static final int TOTAL_UNCOMPRESSED = 144;

    public static VmStatistics64 decode(byte[] bytes) throws IOException {
        if (bytes == null || bytes.length < SIZE) {
            throw new IOException("vm_statistics64: expected " + SIZE + " bytes, got "
                    + (bytes == null ? "none" : bytes.length));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return new VmStatistics64(u32(b, FREE), u32(b, ACTIVE), u32(b, INACTIVE), u32(b, WIRE),
                b.getLong(PAGEINS), b.getLong(PAGEOUTS), u32(b, PURGEABLE), u32(b, SPECULATIVE),
                b.getLong(DECOMPRESSIONS), b.getLong(COMPRESSIONS), b.getLong(SWAPINS), b.getLong(SWAPOUTS),
                u32(b, COMPRESSOR_PAGES), u32(b, THROTTLED), u32(b, EXTERNAL), u32(b, INTERNAL),
                b.getLong(TOTAL_UNCOMPRESSED));
    }

    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }

    /** HOST_VM_INFO64_COUNT: sizeof(vm_statistics64) in integer_t units. */
    static final int COUNT = SIZE / 4;

    /**
     * Refuses a short answer: host_statistics64 writes back in {@code count} how many integer_t it filled,
     * and an older kernel fills fewer than the struct has, leaving the later fields (compressor, internal
     * and external pages: used and available) unset. Those must not come out as 0.
     */
    static void requireFullCount(int count) throws java.io.IOException {
        if (count < COUNT) {
            throw new java.io.IOException("host_statistics64(HOST_VM_INFO64) filled " + count + " of " + COUNT
                    + " integer_t of vm_statistics64 (an older kernel): refusing the short struct");
        }
    }
}
