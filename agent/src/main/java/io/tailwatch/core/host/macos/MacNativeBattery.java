package io.tailwatch.core.host.macos;

import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.CoreFoundation;
import com.sun.jna.platform.mac.CoreFoundation.CFBooleanRef;
import com.sun.jna.platform.mac.CoreFoundation.CFDictionaryRef;
import com.sun.jna.platform.mac.CoreFoundation.CFNumberRef;
import com.sun.jna.platform.mac.CoreFoundation.CFStringRef;
import com.sun.jna.platform.mac.CoreFoundation.CFTypeRef;
import com.sun.jna.platform.mac.IOKit.IOService;
import com.sun.jna.platform.mac.IOKitUtil;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The AppleSmartBattery IORegistry entry (IOKit, jna-platform's mapping). Every property's CF type is
 * checked before it is read (a number as a number, a boolean as a boolean), so a changed entry reads as
 * missing, not as a wrong cast. Ownership: {@code IORegistryEntryCreateCFProperty} returns owned values,
 * released here; values got from a dictionary are borrowed; created key strings are released; the
 * service is released after each read.
 */
public final class MacNativeBattery implements BatterySource {
    static final String CLASS = "AppleSmartBattery";
    private static final String[] NUMBERS = {MacBatterySampler.VOLTAGE, MacBatterySampler.AMPERAGE,
            MacBatterySampler.CURRENT_CAPACITY, MacBatterySampler.MAX_CAPACITY};

    private MacNativeBattery() {
    }

    /** Loads IOKit and CoreFoundation; throws (LinkageError) where they do not exist. */
    public static MacNativeBattery open() {
        CoreFoundation.INSTANCE.CFNumberGetTypeID();
        return new MacNativeBattery();
    }

    @Override
    public Map<String, Long> read() {
        IOService service = IOKitUtil.getMatchingService(CLASS);
        if (service == null) {
            return null;
        }
        try {
            Map<String, Long> out = new LinkedHashMap<>();
            for (String key : NUMBERS) {
                Long v = property(service, key, false);
                if (v != null) {
                    out.put(key, v);
                }
            }
            Long external = property(service, MacBatterySampler.EXTERNAL_CONNECTED, true);
            if (external != null) {
                out.put(MacBatterySampler.EXTERNAL_CONNECTED, external);
            }
            Long watts = adapterWatts(service);
            if (watts != null) {
                out.put(MacBatterySampler.ADAPTER_WATTS, watts);
            }
            return out;
        } finally {
            service.release();
        }
    }

    private static Long property(IOService service, String key, boolean bool) {
        CFStringRef k = CFStringRef.createCFString(key);
        try {
            CFTypeRef v = service.createCFProperty(k);
            if (v == null) {
                return null;
            }
            try {
                return value(v.getPointer(), bool);
            } finally {
                v.release();
            }
        } finally {
            k.release();
        }
    }

    private static Long value(Pointer p, boolean bool) {
        if (p == null) {
            return null;
        }
        CFTypeRef t = new CFTypeRef(p);
        if (bool) {
            return t.isTypeID(CoreFoundation.INSTANCE.CFBooleanGetTypeID()) ? (new CFBooleanRef(p).booleanValue() ? 1L : 0L) : null;
        }
        return t.isTypeID(CoreFoundation.INSTANCE.CFNumberGetTypeID()) ? new CFNumberRef(p).longValue() : null;
    }

    private static Long adapterWatts(IOService service) {
        CFStringRef k = CFStringRef.createCFString("AdapterDetails");
        try {
            CFTypeRef v = service.createCFProperty(k);
            if (v == null) {
                return null;
            }
            try {
                if (!v.isTypeID(CoreFoundation.INSTANCE.CFDictionaryGetTypeID())) {
                    return null;
                }
                CFStringRef w = CFStringRef.createCFString("Watts");
                try {
                    return value(new CFDictionaryRef(v.getPointer()).getValue(w), false);
                } finally {
                    w.release();
                }
            } finally {
                v.release();
            }
        } finally {
            k.release();
        }
    }
}
