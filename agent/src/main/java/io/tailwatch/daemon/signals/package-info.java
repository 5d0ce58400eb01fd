/**
 * The engines' own figures (queue, KV cache, serving counters), one source per file. May use core
 * and the exporters module; never tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon.signals;
