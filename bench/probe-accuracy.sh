#!/usr/bin/env bash
# Probe measurement accuracy against the engine simulator (loopback only).
# Usage: bench/probe-accuracy.sh [probes per row (10)] [max_tokens (32)]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f agent/target/tailwatch.jar ] || [ ! -d agent/target/test-classes/io/tailwatch/bench ]; then
  mvn -B -q -DskipTests package >/dev/null
fi
exec java -cp agent/target/test-classes:agent/target/tailwatch.jar io.tailwatch.bench.ProbeAccuracyBenchmark "$@"
