/**
 * {@code status} and {@code diagnose}: the agent client, the status screen and the ranked causes.
 * May use core and the exporters module; never daemon or cli (ArchitectureTest).
 */
package io.tailwatch.tools.runbook;
