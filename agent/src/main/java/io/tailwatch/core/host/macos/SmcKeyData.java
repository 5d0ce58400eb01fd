package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The 80-byte structure the AppleSMC user client takes and returns in {@code IOConnectCallStructMethod}
 * selector 2 ({@code SMCKeyData_t} as the public SMC tools declare it, laid out by C's natural alignment,
 * host byte order = little-endian on both arm64 and x86_64):
 * <pre>
 *  offset size field
 *   0     4   key            FourCC as an integer ('P'&lt;&lt;24 | 'S'&lt;&lt;16 | 'T'&lt;&lt;8 | 'R')
 *   4     6   vers           major, minor, build, reserved (1 byte each), release (u16)
 *  10     2   (padding: pLimitData starts on 4)
 *  12    16   pLimitData     version u16, length u16, cpuPLimit, gpuPLimit, memPLimit (u32)
 *  28     4   keyInfo.dataSize
 *  32     4   keyInfo.dataType   FourCC as an integer ("flt ", "ui8 ", "fpe2", ...)
 *  36     1   keyInfo.dataAttributes
 *  37     3   (padding: keyInfo is 12 bytes)
 *  40     1   result         0 success, 132 key not found
 *  41     1   status
 *  42     1   data8          the command: 5 read, 8 key by index, 9 key info
 *  43     1   (padding)
 *  44     4   data32         the index for command 8
 *  48    32   bytes          the value
 * </pre>
 * Pure byte work: the native call itself is {@link SmcConnection}.
 */
public final class SmcKeyData {
    public static final int SIZE = 80;
    /** The user client method that takes and returns this structure. */
    public static final int SELECTOR = 2;
    static final int KEY = 0;
    static final int DATA_SIZE = 28;
    static final int DATA_TYPE = 32;
    static final int RESULT = 40;
    static final int DATA8 = 42;
    static final int DATA32 = 44;
    static final int BYTES = 48;
    public static final int MAX_BYTES = 32;

    public static final byte CMD_READ = 5;
    public static final byte CMD_KEY_BY_INDEX = 8;
    public static final byte CMD_KEY_INFO = 9;
    public static final int RESULT_SUCCESS = 0;
    public static final int RESULT_KEY_NOT_FOUND = 132;

    private SmcKeyData() {
    }

    /** What a key holds: its size in bytes and its type, e.g. "flt " (four characters, trailing space kept). */
    public record KeyInfo(int size, String type) {
    }

    /** The FourCC integer of a four-character key or type. */
    public static int fourCc(String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        if (b.length != 4) {
            throw new IllegalArgumentException("an SMC key has 4 characters: \"" + s + "\"");
        }
        return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    }

    /** The four characters of a FourCC integer; a byte outside printable ASCII becomes '?'. */
    public static String fourCc(int v) {
        char[] c = new char[4];
        for (int i = 0; i < 4; i++) {
            int b = (v >>> (24 - 8 * i)) & 0xff;
            c[i] = b >= 0x20 && b < 0x7f ? (char) b : '?';
        }
        return new String(c);
    }

    private static ByteBuffer blank() {
        return ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The request for a key's size and type. */
    public static byte[] keyInfoRequest(String key) {
        ByteBuffer b = blank();
        b.putInt(KEY, fourCc(key));
        b.put(DATA8, CMD_KEY_INFO);
        return b.array();
    }

    /** The request for a key's value; {@code info} is what {@link #keyInfoRequest} returned for it. */
    public static byte[] readRequest(String key, KeyInfo info) {
        ByteBuffer b = blank();
        b.putInt(KEY, fourCc(key));
        b.putInt(DATA_SIZE, info.size());
        b.putInt(DATA_TYPE, fourCc(info.type()));
        b.put(DATA8, CMD_READ);
        return b.array();
    }

    /** The request for the name of the key at {@code index} (0 ... #KEY - 1). */
    public static byte[] keyByIndexRequest(int index) {
        ByteBuffer b = blank();
        b.putInt(DATA32, index);
        b.put(DATA8, CMD_KEY_BY_INDEX);
        return b.array();
    }

    /** The SMC's result byte of a reply (0 success, 132 key not found). */
    public static int result(byte[] reply) throws IOException {
        check(reply);
        return reply[RESULT] & 0xff;
    }

    public static KeyInfo keyInfo(byte[] reply) throws IOException {
        check(reply);
        ByteBuffer b = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
        int size = b.getInt(DATA_SIZE);
        if (size < 0 || size > MAX_BYTES) {
            throw new IOException("SMC key info: data size " + size + " outside 0..32");
        }
        return new KeyInfo(size, fourCc(b.getInt(DATA_TYPE)));
    }

    /** The key named in a reply (command 8). */
    public static String key(byte[] reply) throws IOException {
        check(reply);
        return fourCc(ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getInt(KEY));
    }

    /** The first {@code size} value bytes of a reply (command 5). */
    public static byte[] bytes(byte[] reply, int size) throws IOException {
        check(reply);
        byte[] out = new byte[size];
        System.arraycopy(reply, BYTES, out, 0, size);
        return out;
    }

    private static void check(byte[] reply) throws IOException {
        if (reply == null || reply.length != SIZE) {
            throw new IOException("SMC reply of " + (reply == null ? "no" : reply.length) + " bytes, expected " + SIZE);
        }
    }
}
