/**
 * The plain-socket HTTP/1.1 client: exchanges with deadlines, bounded body and JSON reads, and the
 * transport's failure classes. May use only core/logging (ArchitectureTest).
 */
package io.tailwatch.core.http;
