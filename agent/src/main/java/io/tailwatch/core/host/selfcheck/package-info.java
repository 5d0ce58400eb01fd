/**
 * The native self-check: each native sampler probed first in a child JVM, the record kept in the
 * data directory, and the gate that keeps a sampler that crashed or hung the child out of the
 * daemon. May use the other core packages and the exporters' catalog (io.tailwatch.metrics); never
 * daemon, tools or cli (ArchitectureTest).
 */
package io.tailwatch.core.host.selfcheck;
