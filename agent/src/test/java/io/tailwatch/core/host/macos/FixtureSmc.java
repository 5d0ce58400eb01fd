package io.tailwatch.core.host.macos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An SMC answering from a table of keys, as the AppleSMC user client does: it reads and writes the
 * 80-byte structure at the offsets of SMCKeyData_t worked out by hand from the C declaration (not from
 * {@link SmcKeyData}): key u32 at 0; vers 4..9; pLimitData aligned to 12, 16 bytes; keyInfo at 28
 * (dataSize u32 at 28, dataType u32 at 32, dataAttributes at 36, padded to 40); result at 40; status
 * at 41; data8 at 42; data32 aligned to 44; bytes[32] at 48; 80 in all. Multi-byte fields little-endian
 * (host order on arm64 and x86_64). A key not in the table answers result 132 (kSMCKeyNotFound).
 */
final class FixtureSmc implements SmcConnection {
    record Key(String type, byte[] bytes) {
    }

    final Map<String, Key> keys = new LinkedHashMap<>();
    /** The data8 command of every request, in order. */
    final List<Integer> commands = new ArrayList<>();
    int closed;
    /** Calls that fail (the IOKit call itself returning an error) before the fixture answers again. */
    int failCalls;

    FixtureSmc with(String key, String type, int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) bytes[i];
        }
        keys.put(key, new Key(type, b));
        return this;
    }

    private static int u32le(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    private static void putU32le(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    private static String chars(int v) {
        return "" + (char) (v >>> 24 & 0xff) + (char) (v >>> 16 & 0xff) + (char) (v >>> 8 & 0xff) + (char) (v & 0xff);
    }

    private static int fourCc(String s) {
        return s.charAt(0) << 24 | s.charAt(1) << 16 | s.charAt(2) << 8 | s.charAt(3);
    }

    @Override
    public byte[] call(byte[] in) throws java.io.IOException {
        if (failCalls > 0) {
            failCalls--;
            throw new java.io.IOException("IOConnectCallStructMethod(SMC) returned 0xe00002bc");
        }
        if (in.length != 80) {
            throw new IllegalArgumentException("the user client refuses a structure of " + in.length + " bytes");
        }
        int command = in[42] & 0xff;
        commands.add(command);
        byte[] out = new byte[80];
        if (command == 8) {
            int index = u32le(in, 44);
            List<String> names = new ArrayList<>(keys.keySet());
            if (index >= names.size()) {
                out[40] = (byte) 132;
            } else {
                putU32le(out, 0, fourCc(names.get(index)));
            }
            return out;
        }
        String key = chars(u32le(in, 0));
        putU32le(out, 0, u32le(in, 0));
        Key k = "#KEY".equals(key) ? new Key("ui32", new byte[] {0, 0, 0, (byte) keys.size()}) : keys.get(key);
        if (k == null) {
            out[40] = (byte) 132;
            return out;
        }
        if (command == 9) {
            putU32le(out, 28, k.bytes().length);
            putU32le(out, 32, fourCc(k.type()));
        } else if (command == 5) {
            // The SMC fills as many bytes as the request's keyInfo.dataSize asks for.
            int size = u32le(in, 28);
            if (size != k.bytes().length || u32le(in, 32) != fourCc(k.type())) {
                out[40] = (byte) 1; // kSMCError: a read must carry the key's own size and type
                return out;
            }
            System.arraycopy(k.bytes(), 0, out, 48, size);
        } else {
            out[40] = (byte) 1;
        }
        return out;
    }

    @Override
    public void close() {
        closed++;
    }
}
