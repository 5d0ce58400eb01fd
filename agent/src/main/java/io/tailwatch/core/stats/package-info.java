/**
 * Percentiles and summaries for benchmarks and ladders. A leaf: imports no other package of the
 * project (ArchitectureTest).
 */
package io.tailwatch.core.stats;
