/**
 * Per-engine health checks and probe scheduling, the rolling probe windows, engine discovery and
 * engine status. May use core and the exporters module; never tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon.engine;
