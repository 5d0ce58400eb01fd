#!/usr/bin/env bash
# CPU time of one probe and one health check on the probing thread, against the engine simulator
# (loopback only), with the daemon's JVM flags. Usage: bench/probe-cpu.sh [calls (100)] [max_tokens (32)]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f agent/target/tailwatch.jar ] || [ ! -f agent/target/test-classes/io/tailwatch/bench/ProbeCpuBenchmark.class ]; then
  mvn -B -q -DskipTests package >/dev/null
fi
flags=$(bench/jvm-flags.sh)
# The simulator shares the JVM: give the heap room for it.
# shellcheck disable=SC2086
exec java $flags -Xmx64m -cp agent/target/test-classes:agent/target/tailwatch.jar io.tailwatch.bench.ProbeCpuBenchmark "$@"
