/**
 * The macOS samplers: sysctl, Mach host statistics, IOReport and SMC through JNA, each decoded per
 * Apple's headers. May use the other core packages and the exporters' catalog
 * (io.tailwatch.metrics); never daemon, tools or cli (ArchitectureTest). JNA only in MacNative*
 * (ArchitectureTest).
 */
package io.tailwatch.core.host.macos;
