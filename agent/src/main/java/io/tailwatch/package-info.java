/**
 * The entry point: {@code Main} starts the command line in {@code cli}. Below it the layers point
 * down: {@code cli} uses the two wings, {@code daemon} (the running agent) and {@code tools} (the
 * one-shot commands), which never use each other, and both use {@code core} and the exporters
 * module (ArchitectureTest).
 */
package io.tailwatch;
