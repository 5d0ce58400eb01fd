/**
 * Rule declarations: definitions, the expression language over the metric snapshot, severities,
 * value kinds, the shipped rules and the snapshot readers. May use the other core packages and the
 * exporters' catalog (io.tailwatch.metrics); never daemon, tools or cli (ArchitectureTest).
 */
package io.tailwatch.core.rules;
