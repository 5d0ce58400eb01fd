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
 * arguments are decoded, from whatever prefix of the buffer the caller passes. An argument the prefix cuts is
 * kept as far as it goes, as the Linux table keeps the end of a cut /proc/PID/cmdline: with the full prefix
 * the arguments then come to at least {@link io.tailwatch.core.host.ProcessTable#MAX_ARG_BYTES}, which is how
 * {@link io.tailwatch.core.host.ProcessTable#mayBeCut} tells a cut line.
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
            args.add(new String(buf, start, i - start, StandardCharsets.UTF_8));
            i++;
        }
        return new ProcArgs(exe, List.copyOf(args));
    }
}
