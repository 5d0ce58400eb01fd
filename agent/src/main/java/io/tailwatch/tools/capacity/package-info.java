/**
 * {@code bench} and {@code ladder}: load levels, gates, stop rules, the single-request baseline and
 * its hand-over to the alert baselines, reports and charts. May use core and the exporters module;
 * never daemon or cli (ArchitectureTest).
 */
package io.tailwatch.tools.capacity;
