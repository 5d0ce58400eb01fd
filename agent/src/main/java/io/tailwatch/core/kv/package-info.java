/**
 * Model shape and KV-cache arithmetic, and the Hugging Face config reader they start from. May use
 * the other core packages and the exporters' catalog (io.tailwatch.metrics); never daemon, tools or
 * cli (ArchitectureTest).
 */
package io.tailwatch.core.kv;
