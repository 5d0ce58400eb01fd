package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.NativeProbe;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The CPUs of the IORegistry's {@code IODeviceTree:/cpus} node, decoded from each child's properties as
 * {@code IORegistryEntryCreateCFProperties} hands them over: CFData as {@code byte[]}, CFNumber as
 * {@code Long}, CFString as {@code String}. The properties read:
 * <ul>
 * <li>{@code logical-cpu-id}: the CPU's number as the kernel counts it (PROCESSOR_CPU_LOAD_INFO's order);
 *   a CFNumber, or 4 bytes of little-endian data on builds that leave it as device-tree data;</li>
 * <li>{@code cluster-type}: data holding one ASCII letter and its NUL: {@code E} efficiency, {@code P}
 *   performance (on M5 Pro/Max the fastest tier, which macOS names "Super"), {@code M} the middle tier of
 *   M5 Pro/Max (named "Performance" there);</li>
 * <li>{@code logical-cluster-id} (number or data, optional): the cluster the CPU belongs to;</li>
 * <li>{@code name} (data, optional): {@code cpu0}, ..., kept for messages.</li>
 * </ul>
 * A child without {@code cluster-type} is not counted (Intel Macs have none: no tiers). Anything else that
 * does not fit (a tier letter outside E/M/P, more than one letter, a CPU number missing, repeated or out of
 * 0..n-1) is a wrong layout: the native self-check rejects the source, and the samplers never guess.
 */
public final class DeviceTreeCpus {
    /** The node whose children are the CPUs. */
    public static final String PATH = "IODeviceTree:/cpus";
    public static final String PLANE = "IODeviceTree";
    public static final String LOGICAL_CPU_ID = "logical-cpu-id";
    public static final String CLUSTER_TYPE = "cluster-type";
    public static final String LOGICAL_CLUSTER_ID = "logical-cluster-id";
    public static final String NAME = "name";
    /** The properties read from each child, nothing else. */
    public static final List<String> PROPERTIES = List.of(NAME, LOGICAL_CPU_ID, CLUSTER_TYPE, LOGICAL_CLUSTER_ID);
    /** Bounds the children read (the largest Apple silicon has 32 CPUs). */
    public static final int MAX_CPUS = 256;
    /** Bounds a data property copied out of the registry. */
    public static final int MAX_DATA_BYTES = 64;

    private DeviceTreeCpus() {
    }

    /**
     * One CPU: its logical number, tier letter (E, M or P) and cluster (-1 where the device tree gives
     * none).
     */
    public record Cpu(int logicalId, char tier, int cluster) {
    }

    /**
     * The CPUs ordered by logical number; empty when no child has a {@code cluster-type} (no tiers on this
     * machine).
     */
    public static List<Cpu> decode(List<Map<String, Object>> children) throws NativeProbe.WrongLayout {
        if (children.size() > MAX_CPUS) {
            throw new NativeProbe.WrongLayout(PATH + " has " + children.size() + " children, more than " + MAX_CPUS);
        }
        List<Cpu> out = new ArrayList<>();
        for (Map<String, Object> c : children) {
            Object type = c.get(CLUSTER_TYPE);
            if (type == null) {
                continue;
            }
            String node = nodeName(c);
            char tier = tier(node, type);
            Long id = number(c.get(LOGICAL_CPU_ID));
            if (id == null || id < 0 || id >= MAX_CPUS) {
                throw new NativeProbe.WrongLayout(node + ": " + LOGICAL_CPU_ID + " missing or not a CPU number: "
                        + describe(c.get(LOGICAL_CPU_ID)));
            }
            Long cluster = number(c.get(LOGICAL_CLUSTER_ID));
            out.add(new Cpu(id.intValue(), tier, cluster == null || cluster < 0 || cluster > MAX_CPUS ? -1 : cluster.intValue()));
        }
        out.sort(Comparator.comparingInt(Cpu::logicalId));
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i).logicalId() != i) {
                throw new NativeProbe.WrongLayout(PATH + ": the " + LOGICAL_CPU_ID + " values are not 0.." + (out.size() - 1)
                        + " each once (position " + i + " holds " + out.get(i).logicalId() + ")");
            }
        }
        return List.copyOf(out);
    }

    private static char tier(String node, Object type) throws NativeProbe.WrongLayout {
        String letters;
        if (type instanceof byte[] b) {
            int n = 0;
            while (n < b.length && b[n] != 0) {
                n++;
            }
            letters = new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
        } else if (type instanceof String s) {
            letters = s;
        } else {
            letters = null;
        }
        if (letters == null || letters.length() != 1 || "EMP".indexOf(letters.charAt(0)) < 0) {
            throw new NativeProbe.WrongLayout(node + ": " + CLUSTER_TYPE + " is not one of E, M, P: " + describe(type));
        }
        return letters.charAt(0);
    }

    /** A CFNumber, or data of 4 (u32) or 8 (u64) little-endian bytes; null otherwise. */
    static Long number(Object v) {
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof byte[] b && (b.length == 4 || b.length == 8)) {
            ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            return b.length == 4 ? Integer.toUnsignedLong(bb.getInt()) : bb.getLong();
        }
        return null;
    }

    private static String nodeName(Map<String, Object> c) {
        Object n = c.get(NAME);
        if (n instanceof byte[] b) {
            int len = 0;
            while (len < b.length && len < 16 && b[len] >= 0x20 && b[len] < 0x7f) {
                len++;
            }
            return PATH + "/" + new String(b, 0, len, java.nio.charset.StandardCharsets.US_ASCII);
        }
        return PATH + "/(unnamed)";
    }

    private static String describe(Object v) {
        if (v instanceof byte[] b) {
            return "data " + Arrays.toString(Arrays.copyOf(b, Math.min(b.length, 8))) + (b.length > 8 ? "..." : "");
        }
        return v == null ? "absent" : v.getClass().getSimpleName() + " " + io.tailwatch.core.logging.LogGuard.escape(String.valueOf(v), 40);
    }
}
