/**
 * The running agent: {@code Daemon} wires the sources, the metric hub, the rules, the exporters and
 * the API from its parts here: {@code StatusParts} (the named parts of /api/v1/status),
 * {@code ListenerHealth} (the listener's health answer), {@code AlertDelivery} (webhook, Alertmanager,
 * the labels alerts carry), {@code OtlpPush} (the OTLP push), {@code ReloadPlan} (what a reload restarts)
 * and {@code EngineReconcile} (a reload's pass over the watched engines); {@code AutoEngines} follows
 * discovered engines; {@code ReloadingDaemon} swaps in a reread config. May use core, the daemon's
 * subpackages and the exporters module; never tools or cli, and no subpackage uses this one
 * (ArchitectureTest).
 */
package io.tailwatch.daemon;
