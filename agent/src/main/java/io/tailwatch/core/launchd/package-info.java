/**
 * The {@code launchctl} calls and the engine restart they make. May use the other core packages and
 * the exporters' catalog (io.tailwatch.metrics); never daemon, tools or cli (ArchitectureTest).
 */
package io.tailwatch.core.launchd;
