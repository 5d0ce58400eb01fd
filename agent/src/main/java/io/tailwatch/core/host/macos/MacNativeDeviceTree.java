package io.tailwatch.core.host.macos;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.mac.CoreFoundation;
import com.sun.jna.platform.mac.CoreFoundation.CFDataRef;
import com.sun.jna.platform.mac.CoreFoundation.CFNumberRef;
import com.sun.jna.platform.mac.CoreFoundation.CFStringRef;
import com.sun.jna.platform.mac.CoreFoundation.CFTypeRef;
import com.sun.jna.platform.mac.IOKit.IOIterator;
import com.sun.jna.platform.mac.IOKit.IORegistryEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The children of {@code IODeviceTree:/cpus} with the properties {@link DeviceTreeCpus} decodes (IOKit
 * through JNA). {@code IORegistryEntryFromPath} is mapped here (jna-platform has no mapping for it); the
 * entry it returns, the child iterator, each child and each property copied from a child are owned and
 * released here; the bytes of a data property are copied out before its release.
 */
public final class MacNativeDeviceTree {
    interface Registry extends Library {
        IORegistryEntry IORegistryEntryFromPath(int mainPort, String path);
    }

    /** kIOMainPortDefault: the default main port, MACH_PORT_NULL. */
    private static final int MAIN_PORT_DEFAULT = 0;

    private MacNativeDeviceTree() {
    }

    /** Each CPU node's wanted properties, in the registry's child order; throws where there is no such node. */
    public static List<Map<String, Object>> cpus() throws IOException {
        Registry registry = Native.load("IOKit", Registry.class);
        IORegistryEntry cpus = registry.IORegistryEntryFromPath(MAIN_PORT_DEFAULT, DeviceTreeCpus.PATH);
        if (cpus == null || cpus.getPointer() == null || Pointer.nativeValue(cpus.getPointer()) == 0) {
            throw new IOException("no " + DeviceTreeCpus.PATH + " in the IORegistry");
        }
        List<Map<String, Object>> out = new ArrayList<>();
        List<CFStringRef> keys = new ArrayList<>();
        try {
            for (String k : DeviceTreeCpus.PROPERTIES) {
                keys.add(CFStringRef.createCFString(k));
            }
            IOIterator children = cpus.getChildIterator(DeviceTreeCpus.PLANE);
            if (children == null) {
                throw new IOException("IORegistryEntryGetChildIterator(" + DeviceTreeCpus.PATH + ") failed");
            }
            try {
                for (IORegistryEntry c = children.next(); c != null; c = children.next()) {
                    try {
                        if (out.size() <= DeviceTreeCpus.MAX_CPUS) {
                            out.add(properties(c, keys));
                        }
                    } finally {
                        c.release();
                    }
                }
            } finally {
                children.release();
            }
        } finally {
            keys.forEach(CFStringRef::release);
            cpus.release();
        }
        return out;
    }

    private static Map<String, Object> properties(IORegistryEntry e, List<CFStringRef> keys) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            CFTypeRef v = e.createCFProperty(keys.get(i));
            if (v == null) {
                continue;
            }
            try {
                Object value = value(v);
                if (value != null) {
                    m.put(DeviceTreeCpus.PROPERTIES.get(i), value);
                }
            } finally {
                v.release();
            }
        }
        return m;
    }

    /** CFData as a copy of (at most MAX_DATA_BYTES of) its bytes, CFNumber as Long, CFString as String; null otherwise. */
    private static Object value(CFTypeRef v) {
        CoreFoundation cf = CoreFoundation.INSTANCE;
        if (v.isTypeID(cf.CFDataGetTypeID())) {
            CFDataRef d = new CFDataRef(v.getPointer());
            int n = Math.min(Math.max(d.getLength(), 0), DeviceTreeCpus.MAX_DATA_BYTES);
            return n == 0 ? new byte[0] : d.getBytePtr().getByteArray(0, n);
        }
        if (v.isTypeID(cf.CFNumberGetTypeID())) {
            return new CFNumberRef(v.getPointer()).longValue();
        }
        if (v.isTypeID(cf.CFStringGetTypeID())) {
            String s = new CFStringRef(v.getPointer()).stringValue();
            return s == null || s.length() > DeviceTreeCpus.MAX_DATA_BYTES ? null : s;
        }
        return null;
    }
}
