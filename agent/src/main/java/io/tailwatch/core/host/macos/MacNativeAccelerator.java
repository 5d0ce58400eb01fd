package io.tailwatch.core.host.macos;

import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.CoreFoundation;
import com.sun.jna.platform.mac.CoreFoundation.CFDictionaryRef;
import com.sun.jna.platform.mac.CoreFoundation.CFNumberRef;
import com.sun.jna.platform.mac.CoreFoundation.CFStringRef;
import com.sun.jna.platform.mac.CoreFoundation.CFTypeRef;
import com.sun.jna.platform.mac.IOKit.IOIterator;
import com.sun.jna.platform.mac.IOKit.IORegistryEntry;
import com.sun.jna.platform.mac.IOKitUtil;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The PerformanceStatistics of every IOAccelerator entry (IOKit, jna-platform's mapping). Ownership:
 * {@code IORegistryEntryCreateCFProperty} returns an owned dictionary, released here;
 * {@code CFDictionaryGetValue} returns values it keeps, never released; the key strings this class
 * creates are released after use.
 */
public final class MacNativeAccelerator implements AcceleratorSource {
    static final String CLASS = "IOAccelerator";
    static final String PROPERTY = "PerformanceStatistics";
    private static final String[] KEYS = {AcceleratorStatistics.IN_USE, AcceleratorStatistics.ALLOCATED};

    private MacNativeAccelerator() {
    }

    /** Loads IOKit and CoreFoundation; throws (LinkageError) where they do not exist. */
    public static MacNativeAccelerator open() {
        CoreFoundation.INSTANCE.CFDictionaryGetTypeID();
        return new MacNativeAccelerator();
    }

    @Override
    public List<Map<String, Long>> performanceStatistics() throws IOException {
        IOIterator it = IOKitUtil.getMatchingServices(CLASS);
        if (it == null) {
            throw new IOException("no " + CLASS + " in the IORegistry");
        }
        List<Map<String, Long>> out = new ArrayList<>();
        CFStringRef property = CFStringRef.createCFString(PROPERTY);
        try {
            int seen = 0;
            for (IORegistryEntry e = it.next(); e != null; e = it.next()) {
                try {
                    if (seen++ < AcceleratorStatistics.MAX_ACCELERATORS) {
                        Map<String, Long> d = read(e, property);
                        if (d != null) {
                            out.add(d);
                        }
                    }
                } finally {
                    e.release();
                }
            }
        } finally {
            property.release();
            it.release();
        }
        return out;
    }

    private static Map<String, Long> read(IORegistryEntry e, CFStringRef property) {
        CFTypeRef value = e.createCFProperty(property);
        if (value == null) {
            return null;
        }
        try {
            if (!value.isTypeID(CoreFoundation.INSTANCE.CFDictionaryGetTypeID())) {
                return null;
            }
            CFDictionaryRef dict = new CFDictionaryRef(value.getPointer());
            Map<String, Long> d = new LinkedHashMap<>();
            for (String key : KEYS) {
                CFStringRef k = CFStringRef.createCFString(key);
                try {
                    Pointer p = dict.getValue(k);
                    if (p != null) {
                        CFNumberRef n = new CFNumberRef(p);
                        if (n.isTypeID(CoreFoundation.INSTANCE.CFNumberGetTypeID())) {
                            d.put(key, n.longValue());
                        }
                    }
                } finally {
                    k.release();
                }
            }
            return d;
        } finally {
            value.release();
        }
    }
}
