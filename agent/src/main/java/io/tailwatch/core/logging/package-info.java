/**
 * Log safety for every logger: escaping of outside text, rate limiting, the size-capped log file,
 * URL password redaction. A leaf: imports no other package of the project (ArchitectureTest).
 */
package io.tailwatch.core.logging;
