package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.Map;

/** {@code IOPMCopyCPUPowerStatus} as numbers by key; null when the machine has recorded none. */
public interface CpuPowerStatusSource {
    Map<String, Long> cpuPowerStatus() throws IOException;
}
