/**
 * The rules' runtime: evaluation cycles, alert state and transitions, webhook and Alertmanager
 * delivery, baselines, evidence, and the rule export for Prometheus and Grafana. May use core and
 * the exporters module; never tools or cli (ArchitectureTest).
 */
package io.tailwatch.daemon.alerts;
