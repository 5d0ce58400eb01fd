package io.tailwatch.core.host.macos;

import java.io.IOException;

/** The state of the {@code com.apple.system.thermalpressurelevel} notification. */
public interface ThermalPressureSource {
    long thermalPressureState() throws IOException;
}
