/**
 * The running agent: {@code Daemon} wires the sources, the metric hub, the rules, the exporters and
 * the API; {@code AutoEngines} follows discovered engines; {@code ReloadingDaemon} swaps in a
 * reread config. May use core and the exporters module; never tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon;
