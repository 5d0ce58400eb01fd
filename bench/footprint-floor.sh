#!/usr/bin/env bash
# The resident memory of the agent's libraries without the agent (io.tailwatch.bench.FootprintFloor):
# a bare JVM, Javalin serving one route, a Micrometer Prometheus registry, Jackson (JSON and YAML), all
# three together, and the JDK's own HTTP server in Javalin's place for comparison, each in a JVM of its
# own with the daemon's flags from launchd/jvm.options.
# Loopback only; about 25 s per row.
# Usage: bench/footprint-floor.sh [IDLE_SECONDS (20)]
set -euo pipefail
cd "$(dirname "$0")/.."
IDLE=${1:-20}
if [ ! -f agent/target/tailwatch.jar ] || [ ! -f agent/target/test-classes/io/tailwatch/bench/FootprintFloor.class ]; then
  mvn -B -q -DskipTests package >/dev/null
fi
flags=$(bench/jvm-flags.sh)
# The environment bin/tailwatch gives the JVM on Linux: two glibc malloc arenas.
[ "$(uname -s)" != Linux ] || export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
echo "java: $(java -version 2>&1 | head -n 1)"
echo "flags: $flags${MALLOC_ARENA_MAX:+ (MALLOC_ARENA_MAX=$MALLOC_ARENA_MAX)}"
printf '| %-28s | %10s |\n' "parts" "VmRSS MiB"
printf '|%s|%s|\n' "------------------------------" "------------"
for parts in none javalin jdkhttp micrometer jackson javalin+micrometer+jackson jdkhttp+micrometer+jackson; do
  # shellcheck disable=SC2086
  out=$(java $flags -cp agent/target/test-classes:agent/target/tailwatch.jar io.tailwatch.bench.FootprintFloor "$parts" "$IDLE")
  kib=$(echo "$out" | awk '{print $2}')
  printf '| %-28s | %10s |\n' "$parts" "$(awk -v k="$kib" 'BEGIN {printf "%.1f", k / 1024}')"
done
