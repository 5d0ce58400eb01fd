/**
 * The HTTP side: the API, /metrics, the status page, the HTTPS listener, basic auth and the engine
 * restart route. May use core and the exporters module; never tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon.api;
