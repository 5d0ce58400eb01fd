package io.tailwatch.core.host.macos;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the buffer of sysctl {CTL_KERN, KERN_PROCARGS2, pid}: an int argc, the executable path,
 * NUL padding, then argc NUL-terminated arguments (the environment follows and is ignored, so
 * secrets in it are never read into memory as strings). At most {@link io.tailwatch.core.host.ProcessTable#MAX_ARGS}
 * arguments are decoded, from whatever prefix of the buffer the caller passes; an argument the prefix cuts
 * (no NUL before it ends) is left out, as a prefix of a value is not the value.
 */
public record ProcArgs(String executable, List<String> args) {
    public static ProcArgs decode(byte[] buf, int length) {
        if (buf == null || length < 4) {
            return new ProcArgs("", List.of());
        }
        int len = Math.min(length, buf.length);
        int argc = ByteBuffer.wrap(buf, 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int i = 4;
        int start = i;
        while (i < len && buf[i] != 0) {
            i++;
        }
        String exe = new String(buf, start, i - start, StandardCharsets.UTF_8);
        while (i < len && buf[i] == 0) {
            i++;
        }
        List<String> args = new ArrayList<>();
        while (i < len && args.size() < Math.max(0, Math.min(argc, io.tailwatch.core.host.ProcessTable.MAX_ARGS))) {
            start = i;
            while (i < len && buf[i] != 0) {
                i++;
            }
            if (i == len) {
                break; // no NUL before the prefix ends: the argument is cut, and a prefix of a value is not the value
            }
            args.add(new String(buf, start, i - start, StandardCharsets.UTF_8));
            i++;
        }
        return new ProcArgs(exe, List.copyOf(args));
    }
}
