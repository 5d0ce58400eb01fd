/**
 * Runs kept on disk: the records a ladder or bench leaves, the regression check, the {@code
 * history} listing. May use core and the exporters module; never daemon or cli (ArchitectureTest).
 */
package io.tailwatch.tools.history;
