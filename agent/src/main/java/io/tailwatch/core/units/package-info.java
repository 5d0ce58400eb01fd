/**
 * Durations and byte sizes as the config and the rules write them. A leaf: imports no other package
 * of the project (ArchitectureTest).
 */
package io.tailwatch.core.units;
