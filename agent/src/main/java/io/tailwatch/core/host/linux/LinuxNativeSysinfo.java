package io.tailwatch.core.host.linux;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.ByteOrder;

/**
 * {@code sysinfo(2)} through libc, for {@code doctor}: a path to the kernel's memory figures that does not
 * go through procfs. Never used by a sampler.
 */
public final class LinuxNativeSysinfo {
    private LinuxNativeSysinfo() {
    }

    public static Sysinfo read() throws IOException {
        try (Memory m = new Memory(Sysinfo.SIZE)) {
            m.clear();
            if (LibC.INSTANCE.sysinfo(m) != 0) {
                throw new IOException("sysinfo(2) failed: errno " + Native.getLastError());
            }
            return Sysinfo.decode(m.getByteBuffer(0, Sysinfo.SIZE), NativeLong.SIZE, ByteOrder.nativeOrder());
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            throw new IOException("sysinfo(2) cannot be called: " + e.getMessage());
        }
    }

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int sysinfo(Pointer info);
    }
}
