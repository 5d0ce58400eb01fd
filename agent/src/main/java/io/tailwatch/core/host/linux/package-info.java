/**
 * The Linux samplers: procfs and sysfs readers (memory, swap, pressure, CPU, frequency, thermal, RAPL
 * energy, the process table). May use the other core packages and the exporters' catalog
 * (io.tailwatch.metrics); never daemon, tools or cli (ArchitectureTest). Native calls only in
 * LinuxNative*.
 */
package io.tailwatch.core.host.linux;
