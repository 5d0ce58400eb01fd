/**
 * The strict YAML configuration: every section read with line and column problems, defaults,
 * bounds, and the exporter-toolkit web config with its live re-reading. May use the other core
 * packages and the exporters' catalog (io.tailwatch.metrics); never daemon, tools or cli
 * (ArchitectureTest).
 */
package io.tailwatch.core.config;
