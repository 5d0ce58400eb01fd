package io.tailwatch.core.host.macos;

import com.sun.jna.platform.mac.IOKit.IOIterator;
import com.sun.jna.platform.mac.IOKit.IORegistryEntry;
import com.sun.jna.platform.mac.IOKitUtil;
import java.io.IOException;

/** Reads the GPU DVFS table ({@code voltage-states9} of the pmgr device) from the IORegistry. */
public final class MacNativeGpuTable {
    static final String PROPERTY = "voltage-states9";

    private MacNativeGpuTable() {
    }

    public static long[] read() throws IOException {
        IOIterator it = IOKitUtil.getMatchingServices("AppleARMIODevice");
        if (it == null) {
            throw new IOException("no AppleARMIODevice in the IORegistry (not Apple Silicon)");
        }
        try {
            for (IORegistryEntry e = it.next(); e != null; e = it.next()) {
                try {
                    if ("pmgr".equals(e.getName())) {
                        byte[] data = e.getByteArrayProperty(PROPERTY);
                        long[] hz = DvfsTable.decodeHz(data);
                        if (hz.length > 0) {
                            return hz;
                        }
                    }
                } finally {
                    e.release();
                }
            }
        } finally {
            it.release();
        }
        throw new IOException("no " + PROPERTY + " table on the pmgr device");
    }
}
