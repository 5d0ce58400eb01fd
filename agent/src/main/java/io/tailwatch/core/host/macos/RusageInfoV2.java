package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The two fields tailwatch reads from xnu's {@code struct rusage_info_v2} (sys/resource.h), filled by
 * {@code proc_pid_rusage(pid, RUSAGE_INFO_V2, ...)}: after the 16-byte ri_uuid come u64 fields, so
 * ri_resident_size sits at byte {@value #RESIDENT_SIZE} and ri_phys_footprint at byte
 * {@value #PHYS_FOOTPRINT}. The whole struct is {@value #SIZE} bytes.
 */
public record RusageInfoV2(long residentSize, long physFootprint) {
    public static final int SIZE = 160;
    static final int RESIDENT_SIZE = 64;
    static final int PHYS_FOOTPRINT = 72;

    public static RusageInfoV2 decode(byte[] bytes) throws IOException {
        if (bytes == null || bytes.length < PHYS_FOOTPRINT + 8) {
            throw new IOException("rusage_info_v2: expected " + SIZE + " bytes, got "
                    + (bytes == null ? "none" : bytes.length));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long rss = b.getLong(RESIDENT_SIZE);
        long footprint = b.getLong(PHYS_FOOTPRINT);
        if (rss < 0 || footprint < 0) {
            throw new IOException("rusage_info_v2: negative sizes rss=" + rss + " footprint=" + footprint);
        }
        return new RusageInfoV2(rss, footprint);
    }
}
