package io.tailwatch.core.host.macos;

import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.CoreFoundation;
import com.sun.jna.platform.mac.CoreFoundation.CFArrayRef;
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
 * creates are released after use. The user clients ({@link #userClients}) are the accelerator's children in
 * the service plane ({@code IORegistryEntryGetChildIterator}, each child and the iterator released); each
 * property copied from a child is owned and released, the values inside it are read, never released.
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

    @Override
    public GpuClients userClients() throws IOException {
        IOIterator it = IOKitUtil.getMatchingServices(CLASS);
        if (it == null) {
            throw new IOException("no " + CLASS + " in the IORegistry");
        }
        List<GpuClients.Client> out = new ArrayList<>();
        CFStringRef creatorKey = CFStringRef.createCFString(GpuClients.CREATOR);
        CFStringRef usageKey = CFStringRef.createCFString(GpuClients.APP_USAGE);
        CFStringRef timeKey = CFStringRef.createCFString(GpuClients.GPU_TIME);
        int gpus = 0;
        try {
            for (IORegistryEntry e = it.next(); e != null; e = it.next()) {
                try {
                    if (gpus < AcceleratorStatistics.MAX_ACCELERATORS) {
                        clients(e, gpus, out, creatorKey, usageKey, timeKey);
                        gpus++;
                    }
                } finally {
                    e.release();
                }
            }
        } finally {
            timeKey.release();
            usageKey.release();
            creatorKey.release();
            it.release();
        }
        return new GpuClients(gpus, out);
    }

    private static void clients(IORegistryEntry accelerator, int gpu, List<GpuClients.Client> out, CFStringRef creatorKey,
                                CFStringRef usageKey, CFStringRef timeKey) {
        IOIterator children = accelerator.getChildIterator("IOService");
        if (children == null) {
            return;
        }
        try {
            for (IORegistryEntry c = children.next(); c != null; c = children.next()) {
                try {
                    if (out.size() < GpuClients.MAX_CLIENTS) {
                        Map<String, Object> props = new LinkedHashMap<>();
                        String creator = stringProperty(c, creatorKey);
                        if (creator != null) {
                            props.put(GpuClients.CREATOR, creator);
                            Long direct = numberProperty(c, timeKey);
                            if (direct != null) {
                                props.put(GpuClients.GPU_TIME, direct);
                            }
                            List<Map<String, Object>> usages = usages(c, usageKey, timeKey);
                            if (usages != null) {
                                props.put(GpuClients.APP_USAGE, usages);
                            }
                            GpuClients.Client client = GpuClients.decode(gpu, c.getRegistryEntryID(), props);
                            if (client != null) {
                                out.add(client);
                            }
                        }
                    }
                } finally {
                    c.release();
                }
            }
        } finally {
            children.release();
        }
    }

    private static String stringProperty(IORegistryEntry e, CFStringRef key) {
        return property(e, key, CoreFoundation.INSTANCE.CFStringGetTypeID(), p -> new CFStringRef(p).stringValue());
    }

    private static Long numberProperty(IORegistryEntry e, CFStringRef key) {
        return property(e, key, CoreFoundation.INSTANCE.CFNumberGetTypeID(), p -> new CFNumberRef(p).longValue());
    }

    /** One owned property of the entry, read when it has the type, released either way; null when absent. */
    private static <T> T property(IORegistryEntry e, CFStringRef key, CoreFoundation.CFTypeID type,
                                  java.util.function.Function<Pointer, T> read) {
        CFTypeRef v = e.createCFProperty(key);
        if (v == null) {
            return null;
        }
        try {
            return v.isTypeID(type) ? read.apply(v.getPointer()) : null;
        } finally {
            v.release();
        }
    }

    /** The AppUsage array's dictionaries, each with its accumulatedGPUTime when it is a number; null without one. */
    private static List<Map<String, Object>> usages(IORegistryEntry e, CFStringRef usageKey, CFStringRef timeKey) {
        CFTypeRef v = e.createCFProperty(usageKey);
        if (v == null) {
            return null;
        }
        try {
            if (!v.isTypeID(CoreFoundation.INSTANCE.CFArrayGetTypeID())) {
                return null;
            }
            CFArrayRef a = new CFArrayRef(v.getPointer());
            int n = Math.min(a.getCount(), GpuClients.MAX_USAGES);
            List<Map<String, Object>> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Pointer item = a.getValueAtIndex(i);
                Map<String, Object> d = new LinkedHashMap<>();
                if (item != null) {
                    CFTypeRef t = new CFTypeRef(item);
                    if (t.isTypeID(CoreFoundation.INSTANCE.CFDictionaryGetTypeID())) {
                        Pointer p = new CFDictionaryRef(item).getValue(timeKey);
                        if (p != null) {
                            CFNumberRef num = new CFNumberRef(p);
                            if (num.isTypeID(CoreFoundation.INSTANCE.CFNumberGetTypeID())) {
                                d.put(GpuClients.GPU_TIME, num.longValue());
                            }
                        }
                    }
                }
                out.add(d);
            }
            return out;
        } finally {
            v.release();
        }
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
