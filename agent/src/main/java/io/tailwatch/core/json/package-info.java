/**
 * The one JSON mapper of the project: RFC 3339 timestamps, absent values left out. A leaf: imports
 * no other package of the project (ArchitectureTest).
 */
package io.tailwatch.core.json;
