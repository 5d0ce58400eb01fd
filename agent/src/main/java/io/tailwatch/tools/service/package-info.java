/**
 * {@code service install/uninstall/logs}: the agent and engine plists, their paths and JVM flags.
 * May use core and the exporters module; never daemon or cli (ArchitectureTest).
 */
package io.tailwatch.tools.service;
