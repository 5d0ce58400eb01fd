/**
 * The parts of /api/v1/status and their last-hour history. May use core and the exporters module;
 * never tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon.status;
