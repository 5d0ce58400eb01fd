package io.tailwatch.core.host.macos;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.CoreFoundation.CFDictionaryRef;
import com.sun.jna.platform.mac.CoreFoundation.CFNumberRef;
import com.sun.jna.platform.mac.CoreFoundation.CFStringRef;
import com.sun.jna.ptr.PointerByReference;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code IOPMCopyCPUPowerStatus} (IOKit power management, not in jna-platform). */
public final class MacNativePowerStatus implements CpuPowerStatusSource {
    /** kIOReturnNotFound: no CPU power status has been recorded (every Apple Silicon Mac). */
    static final int IO_RETURN_NOT_FOUND = 0xE00002F0;
    /** kIOReturnUnsupported. */
    static final int IO_RETURN_UNSUPPORTED = 0xE00002C7;
    private static final List<String> KEYS = List.of(CpuPowerStatus.SPEED_LIMIT, CpuPowerStatus.SCHEDULER_LIMIT,
            CpuPowerStatus.AVAILABLE_CPUS);

    interface PowerManagement extends Library {
        PowerManagement INSTANCE = Native.load("IOKit", PowerManagement.class);

        int IOPMCopyCPUPowerStatus(PointerByReference cpuPowerStatus);
    }

    private MacNativePowerStatus() {
    }

    public static MacNativePowerStatus open() {
        PowerManagement lib = PowerManagement.INSTANCE;
        return lib == null ? null : new MacNativePowerStatus();
    }

    @Override
    public Map<String, Long> cpuPowerStatus() throws IOException {
        PointerByReference out = new PointerByReference();
        int ret = PowerManagement.INSTANCE.IOPMCopyCPUPowerStatus(out);
        if (ret == IO_RETURN_NOT_FOUND || ret == IO_RETURN_UNSUPPORTED) {
            return null;
        }
        if (ret != 0) {
            throw new IOException("IOPMCopyCPUPowerStatus failed (IOReturn 0x" + Integer.toHexString(ret) + ")");
        }
        if (out.getValue() == null) {
            return null;
        }
        CFDictionaryRef dict = new CFDictionaryRef(out.getValue());
        try {
            Map<String, Long> values = new LinkedHashMap<>();
            for (String k : KEYS) {
                CFStringRef key = CFStringRef.createCFString(k);
                try {
                    Pointer v = dict.getValue(key);
                    if (v != null) {
                        values.put(k, new CFNumberRef(v).longValue());
                    }
                } finally {
                    key.release();
                }
            }
            return values;
        } finally {
            dict.release();
        }
    }
}
