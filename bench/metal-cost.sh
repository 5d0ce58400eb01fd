#!/usr/bin/env bash
# macOS only: what loading Metal (hw.gpu.memory.limit's source) costs the agent's memory. One JVM with
# the daemon's flags (io.tailwatch.bench.MetalCost) is measured with `footprint` (what Activity Monitor
# shows) and ps RSS before and after MacNativeMetal.open() and one recommendedMaxWorkingSetSize read.
# Then the whole agent: `tailwatch run` with the built-in config, footprint after IDLE seconds.
# Usage: bench/metal-cost.sh [IDLE_SECONDS (20)]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(uname -s)" = Darwin ] || { echo "macOS only (Metal)" >&2; exit 2; }
IDLE=${1:-20}
if [ ! -f agent/target/tailwatch.jar ] || [ ! -f agent/target/test-classes/io/tailwatch/bench/MetalCost.class ]; then
  mvn -B -q -DskipTests package >/dev/null
fi
flags=$(bench/jvm-flags.sh)
fp() { footprint -f bytes "$1" | awk '/Footprint:/ {print $2; exit}'; }
rss() { ps -o rss= -p "$1" | awk '{print $1 * 1024}'; }
in=$(mktemp -u); mkfifo "$in"; out=$(mktemp)
# shellcheck disable=SC2086
java $flags -cp agent/target/test-classes:agent/target/tailwatch.jar io.tailwatch.bench.MetalCost "$IDLE" <"$in" >"$out" &
JPID=$!
exec 3>"$in"
until grep -q '^before' "$out"; do sleep 1; done
fb=$(fp $JPID); rb=$(rss $JPID)
echo >&3
until grep -q '^after' "$out"; do sleep 1; done
fa=$(fp $JPID); ra=$(rss $JPID)
exec 3>&-; kill $JPID 2>/dev/null || true; rm -f "$in"
echo "recommendedMaxWorkingSetSize: $(awk '/^after/ {print $2}' "$out") bytes"
printf '| %-14s | %12s | %12s | %12s |\n' "" "before MiB" "after MiB" "Metal MiB"
printf '| %-14s | %12.1f | %12.1f | %12.1f |\n' footprint "$(echo "$fb/1048576" | bc -l)" "$(echo "$fa/1048576" | bc -l)" "$(echo "($fa-$fb)/1048576" | bc -l)"
printf '| %-14s | %12.1f | %12.1f | %12.1f |\n' RSS "$(echo "$rb/1048576" | bc -l)" "$(echo "$ra/1048576" | bc -l)" "$(echo "($ra-$rb)/1048576" | bc -l)"
rm -f "$out"
java -jar agent/target/tailwatch.jar run >/dev/null 2>&1 & APID=$!
sleep "$IDLE"
echo "tailwatch run after ${IDLE}s (Metal loaded by its gpu_limit sampler): footprint $(echo "$(fp $APID)/1048576" | bc -l | xargs printf '%.1f') MiB"
kill $APID
