/**
 * PEM certificates and keys, and the pinned-certificate client trust. A leaf: imports no other
 * package of the project (ArchitectureTest).
 */
package io.tailwatch.core.tls;
