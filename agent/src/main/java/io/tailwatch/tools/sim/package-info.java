/**
 * The engine simulator (Ollama and OpenAI wires, with timing, faults and a stall schedule) for fire
 * drills, demos and tests. May use core and the exporters module; never daemon or cli
 * (ArchitectureTest).
 */
package io.tailwatch.tools.sim;
