/**
 * {@code doctor}: host and engine checks for macOS and Linux. May use core and the exporters
 * module; never daemon or cli (ArchitectureTest).
 */
package io.tailwatch.tools.doctor;
