/**
 * The {@code tailwatch} command line (picocli): parses options, calls a tool or starts the daemon,
 * and prints through picocli's writers, never System.out or System.err. May use every other
 * package; nothing imports it.
 */
package io.tailwatch.cli;
