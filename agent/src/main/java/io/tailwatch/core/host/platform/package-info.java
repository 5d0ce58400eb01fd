/**
 * Picks this operating system's samplers, the resource attributes of the host, and whether the
 * terminal is a TTY. May use the other core packages and the exporters' catalog
 * (io.tailwatch.metrics); never daemon, tools or cli (ArchitectureTest). JNA only in
 * NativeTerminal.
 */
package io.tailwatch.core.host.platform;
