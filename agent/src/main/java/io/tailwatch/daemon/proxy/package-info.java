/**
 * The engines' metering proxies (opt-in per engine): requests forwarded untouched, each answer
 * measured on its way through core/probe's stream tap. May use core and the exporters module; never
 * tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon.proxy;
