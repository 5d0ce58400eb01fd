/**
 * Host sampling: the sampler interface, the sampling loop with its deadlines, and the host
 * snapshot; the per-OS samplers live in {@code linux}, {@code macos} and {@code platform}. May use
 * the other core packages and the exporters' catalog (io.tailwatch.metrics); never daemon, tools or
 * cli (ArchitectureTest).
 */
package io.tailwatch.core.host;
