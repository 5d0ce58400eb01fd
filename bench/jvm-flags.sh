#!/usr/bin/env bash
# Prints the daemon's JVM flags as bin/tailwatch passes them: launchd/jvm.options, plus the native-heap
# trim on Linux when this java knows it. Used by the benchmark scripts beside it. (The launcher also sets
# MALLOC_ARENA_MAX=2 on Linux; bench/lib.sh and bench/footprint-floor.sh do the same.)
set -euo pipefail
cd "$(dirname "$0")/.."
flags=$(grep -v '^[[:space:]]*\(#\|$\)' launchd/jvm.options | tr '\n' ' ')
if [ "$(uname -s)" = Linux ] && java -XX:TrimNativeHeapInterval=60000 -version >/dev/null 2>&1; then
  flags="$flags -XX:TrimNativeHeapInterval=60000"
fi
echo "$flags"
