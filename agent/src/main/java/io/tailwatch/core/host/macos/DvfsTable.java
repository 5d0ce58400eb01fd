package io.tailwatch.core.host.macos;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decodes a DVFS table from the IORegistry (the pmgr device's {@code voltage-states9} property for
 * the GPU): pairs of little-endian u32 (frequency, voltage). Every entry keeps its position, zeros
 * included: the position is what pairs an entry with an IOReport performance state (see
 * {@link GpuResidency}). Older chips store Hz; newer ones kHz, recognised by every value being below
 * 10 MHz.
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
        long max = 0;
        for (int i = 0; i < out.length; i++) {
            out[i] = Integer.toUnsignedLong(b.getInt(i * 8));
            max = Math.max(max, out[i]);
        }
        if (max == 0) {
            return new long[0];
        }
        if (max < KHZ_THRESHOLD) {
            for (int i = 0; i < out.length; i++) {
                out[i] *= 1000;
            }
        }
        return out;
    }
}
