package io.tailwatch.host.macos;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Decodes a DVFS table from the IORegistry (the pmgr device's {@code voltage-states9} property for
 * the GPU): pairs of little-endian u32 (frequency, voltage). Zero frequencies are placeholders and
 * skipped. Older chips store Hz; newer ones kHz, recognised by every value being below 10 MHz.
 */
public final class DvfsTable {
    static final long KHZ_THRESHOLD = 10_000_000L;

    private DvfsTable() {
    }

    public static long[] decodeHz(byte[] data) {
        if (data == null || data.length < 8) {
            return new long[0];
        }
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        long[] out = new long[data.length / 8];
        int n = 0;
        long max = 0;
        for (int off = 0; off + 8 <= data.length; off += 8) {
            long f = Integer.toUnsignedLong(b.getInt(off));
            if (f == 0) {
                continue;
            }
            out[n++] = f;
            max = Math.max(max, f);
        }
        out = Arrays.copyOf(out, n);
        if (max < KHZ_THRESHOLD) {
            for (int i = 0; i < n; i++) {
                out[i] *= 1000;
            }
        }
        return out;
    }
}
