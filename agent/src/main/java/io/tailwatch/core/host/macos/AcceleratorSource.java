package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The IORegistry's IOAccelerator entries, as far as their memory goes. The native implementation
 * ({@link MacNativeAccelerator}) is the only one that calls IOKit; tests give dictionaries shaped like
 * {@code ioreg -r -c IOAccelerator} output ({@link AcceleratorStatistics#parseIoreg}).
 */
public interface AcceleratorSource {
    /** One PerformanceStatistics dictionary per accelerator that has one: its integer entries by key. */
    List<Map<String, Long>> performanceStatistics() throws IOException;

    /**
     * The user clients of every accelerator (its children in the service plane) that carry GPU time,
     * {@link GpuClients}. A source that cannot read them throws.
     */
    default GpuClients userClients() throws IOException {
        throw new IOException("this accelerator source reads no user clients");
    }
}
