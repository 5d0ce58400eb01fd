package io.tailwatch.core.host.macos;

import io.tailwatch.core.host.NativeProbe;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * {@code struct task_vm_info} (xnu osfmk/mach/task_info.h, {@code #pragma pack(4)}), read through
 * {@code task_info(task, TASK_VM_INFO = 22, buf, &count)} with count in 32-bit words. The offsets, worked
 * out from the declaration: virtual_size u64 at 0; region_count i32 at 8; page_size i32 at 12; resident_size,
 * resident_size_peak, device, device_peak, internal, internal_peak, external, external_peak, reusable,
 * reusable_peak, purgeable_volatile_pmap/_resident/_virtual, compressed, compressed_peak,
 * compressed_lifetime: u64 each from 16 to 136; rev1 phys_footprint at 144; rev2 min_address 152,
 * max_address 160; rev3, 21 int64 ledgers from 168: phys_footprint_peak 168, purgeable (4) 176-200,
 * network (4) 208-232, media (4) 240-264, graphics_footprint 272, graphics_footprint_compressed 280,
 * graphics_nofootprint 288, graphics_nofootprint_compressed 296, neural (4) 304-328; rev3 ends at 336
 * ({@value #REV3_COUNT} words). Host byte order (little-endian on arm64 and x86_64).
 *
 * <p>The graphics ledgers hold the IOAccelerator (Metal) memory charged to the task's footprint: what
 * Activity Monitor shows as its GPU memory. A kernel that answers fewer than {@value #REV3_COUNT} words
 * (before macOS 10.15) has no such ledgers: the figure is absent.
 */
public final class TaskVmInfo {
    public static final int FLAVOR = 22;
    /** TASK_VM_INFO_REV3_COUNT: words up to the end of the rev3 ledgers. */
    public static final int REV3_COUNT = 84;
    /** The words this reader asks for (rev3; a newer kernel fills no more than asked). */
    public static final int COUNT = REV3_COUNT;
    static final int PAGE_SIZE = 12;
    static final int PHYS_FOOTPRINT = 144;
    static final int GRAPHICS_FOOTPRINT = 272;
    static final int GRAPHICS_FOOTPRINT_COMPRESSED = 280;

    private TaskVmInfo() {
    }

    /** The figures of one task this agent reads. */
    public record Reading(long physFootprint, long graphicsBytes, int pageSize) {
    }

    /**
     * Decodes {@code words} 32-bit words of {@code b}, or null when the kernel gave fewer than rev3's or a
     * ledger reads negative (a ledger the kernel does not keep for this task).
     */
    public static Reading decode(byte[] b, int words) {
        if (words < REV3_COUNT || b.length < REV3_COUNT * 4) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        long graphics = buf.getLong(GRAPHICS_FOOTPRINT);
        long compressed = buf.getLong(GRAPHICS_FOOTPRINT_COMPRESSED);
        if (graphics < 0 || compressed < 0) {
            return null;
        }
        return new Reading(buf.getLong(PHYS_FOOTPRINT), graphics + compressed, buf.getInt(PAGE_SIZE));
    }

    /**
     * The self-check's test of the agent's own task: rev3 answered, a page size of 4 or 16 KiB, a footprint
     * above 0 and graphics memory within it (the graphics ledgers are part of the footprint). Anything else
     * means the struct is not laid out as decoded here.
     */
    public static void checkLayout(byte[] b, int words) throws NativeProbe.WrongLayout {
        if (words < REV3_COUNT) {
            throw new NativeProbe.WrongLayout("TASK_VM_INFO answered " + words + " words, fewer than rev3's " + REV3_COUNT);
        }
        Reading r = decode(b, words);
        if (r == null) {
            throw new NativeProbe.WrongLayout("TASK_VM_INFO graphics ledgers read negative");
        }
        if (r.pageSize() != 4096 && r.pageSize() != 16384) {
            throw new NativeProbe.WrongLayout("TASK_VM_INFO page_size reads " + r.pageSize());
        }
        if (r.physFootprint() <= 0 || r.graphicsBytes() > r.physFootprint()) {
            throw new NativeProbe.WrongLayout("TASK_VM_INFO graphics " + r.graphicsBytes() + " B against a footprint of "
                    + r.physFootprint() + " B");
        }
    }
}
