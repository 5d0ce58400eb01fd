package io.tailwatch.core.host.macos;

import java.io.IOException;

/**
 * The plain system calls the macOS samplers need, as raw values and struct bytes. The native
 * implementation ({@link MacNativeSystem}) is the only one that calls into libSystem; tests supply
 * fixture bytes laid out per the xnu headers.
 */
public interface MacSystem {
    /** A 32- or 64-bit integer sysctl (the size the kernel returns decides). */
    long sysctlLong(String name) throws IOException;

    String sysctlString(String name) throws IOException;

    /** The raw bytes of a struct sysctl such as vm.swapusage. */
    byte[] sysctlStruct(String name, int size) throws IOException;

    /** The bytes of struct vm_statistics64 from host_statistics64(HOST_VM_INFO64). */
    byte[] vmStatistics64() throws IOException;

    long pageSize() throws IOException;

    /**
     * The raw array of {@code host_processor_info(PROCESSOR_CPU_LOAD_INFO)}: one
     * {@code processor_cpu_load_info} (16 bytes) per logical CPU, see {@link ProcessorCpuLoadInfo}.
     */
    byte[] processorCpuLoadInfo() throws IOException;
}
