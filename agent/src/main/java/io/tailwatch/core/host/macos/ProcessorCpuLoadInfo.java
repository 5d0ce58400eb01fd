package io.tailwatch.core.host.macos;

import io.tailwatch.metrics.AttrValues.CpuMode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decodes the array {@code host_processor_info(host, PROCESSOR_CPU_LOAD_INFO, ...)} returns: one
 * {@code struct processor_cpu_load_info { unsigned int cpu_ticks[CPU_STATE_MAX]; }} per logical CPU
 * (xnu osfmk/mach/processor_info.h lines 114-121), indexed by CPU_STATE_USER 0, CPU_STATE_SYSTEM 1,
 * CPU_STATE_IDLE 2, CPU_STATE_NICE 3 (osfmk/mach/machine.h lines 74-79), CPU_STATE_MAX 4: 16 bytes
 * per CPU, native (little-endian) order. xnu fills user, system and idle and always reports nice as 0
 * (osfmk/kern/processor.c lines 811-815), so nice is not read.
 */
public final class ProcessorCpuLoadInfo {
    static final int CPU_STATE_MAX = 4;
    static final int CPU_STATE_USER = 0;
    static final int CPU_STATE_SYSTEM = 1;
    static final int CPU_STATE_IDLE = 2;
    /** Bytes per CPU: CPU_STATE_MAX unsigned ints. */
    public static final int STRUCT_SIZE = CPU_STATE_MAX * 4;
    /** More logical CPUs than any Mac has: a larger answer is garbage. */
    static final int MAX_CPUS = 1024;

    /** The modes read, in the column order of {@link #decode}. */
    public static final CpuMode[] MODES = {CpuMode.USER, CpuMode.SYSTEM, CpuMode.IDLE};

    private ProcessorCpuLoadInfo() {
    }

    /** ticks[cpu][mode] in {@link #MODES} order, each an unsigned 32-bit count. */
    public static long[][] decode(byte[] bytes) throws IOException {
        if (bytes == null || bytes.length == 0 || bytes.length % STRUCT_SIZE != 0) {
            throw new IOException("processor_cpu_load_info: expected a multiple of " + STRUCT_SIZE + " bytes, got "
                    + (bytes == null ? "none" : bytes.length));
        }
        int cpus = bytes.length / STRUCT_SIZE;
        if (cpus > MAX_CPUS) {
            throw new IOException("processor_cpu_load_info: " + cpus + " CPUs is more than " + MAX_CPUS);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long[][] out = new long[cpus][MODES.length];
        for (int cpu = 0; cpu < cpus; cpu++) {
            int base = cpu * STRUCT_SIZE;
            out[cpu][0] = Integer.toUnsignedLong(b.getInt(base + CPU_STATE_USER * 4));
            out[cpu][1] = Integer.toUnsignedLong(b.getInt(base + CPU_STATE_SYSTEM * 4));
            out[cpu][2] = Integer.toUnsignedLong(b.getInt(base + CPU_STATE_IDLE * 4));
        }
        return out;
    }
}
