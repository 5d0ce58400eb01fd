package io.tailwatch.core.host.macos;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One SMC key's value: its type and raw bytes, decoded by type. Byte orders as the SMC gives them
 * through the user client: {@code flt } and {@code ioft} little-endian (Apple silicon's SMC writes
 * them in its own order), the integer and fixed-point types big-endian (the SMC's historical order).
 */
public record SmcValue(String key, String type, byte[] bytes) {

    /** The value as a number, or null for a type this decoder does not know or bytes too short for it. */
    public Double number() {
        return decode(type, bytes);
    }

    static Double decode(String type, byte[] b) {
        return switch (type) {
            // IEEE 754 single precision, little-endian.
            case "flt " -> b.length >= 4 ? (double) ByteBuffer.wrap(b, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat() : null;
            case "ui8 " -> b.length >= 1 ? (double) (b[0] & 0xff) : null;
            case "ui16" -> b.length >= 2 ? (double) u16(b) : null;
            case "ui32" -> b.length >= 4 ? (double) ((long) u16(b) << 16 | ((b[2] & 0xff) << 8 | (b[3] & 0xff))) : null;
            // Unsigned, 14 integer and 2 fraction bits, big-endian (fan speeds on Intel Macs).
            case "fpe2" -> b.length >= 2 ? u16(b) / 4.0 : null;
            // Signed, 7 integer and 8 fraction bits, big-endian (temperatures on Intel Macs).
            case "sp78" -> b.length >= 2 ? ((short) u16(b)) / 256.0 : null;
            // Unsigned 48.16 fixed point in 8 bytes, little-endian.
            case "ioft" -> b.length >= 8 ? ioft(b) : null;
            default -> null;
        };
    }

    private static int u16(byte[] b) {
        return (b[0] & 0xff) << 8 | (b[1] & 0xff);
    }

    private static double ioft(byte[] b) {
        long raw = ByteBuffer.wrap(b, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        // Unsigned: the top bit is part of the integer, not a sign.
        double whole = raw >= 0 ? raw : raw + 0x1p64;
        return whole / 65536.0;
    }
}
