/**
 * The metric catalog (every metric the agent exports, with its unit and labels), the metric hub
 * that holds the latest points with its bounds, and the Prometheus text and OTLP exporters. Imports
 * nothing of the agent module: the agent depends on it, never the other way.
 */
package io.tailwatch.metrics;
