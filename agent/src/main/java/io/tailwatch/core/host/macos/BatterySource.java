package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.Map;

/** The AppleSmartBattery IORegistry entry's figures by property name, or null on a Mac without a battery. */
public interface BatterySource {
    Map<String, Long> read() throws IOException;
}
