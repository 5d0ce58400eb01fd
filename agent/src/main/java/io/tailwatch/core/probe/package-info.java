/**
 * The engine clients (Ollama and OpenAI-compatible wires), their stream decoders, probe
 * measurements, and the stream tap the proxies read answers through. May use the other core
 * packages and the exporters' catalog (io.tailwatch.metrics); never daemon, tools or cli
 * (ArchitectureTest).
 */
package io.tailwatch.core.probe;
