#!/usr/bin/env bash
# Start-up time of a release bundle: starts BUNDLE_DIR/bin/tailwatch run (the launcher's JVM flags) with the
# bundle's shipped config/tailwatch.yaml on a free loopback port (data directory, HOME and cache in a temporary
# directory), asks /healthz every 10 ms, prints the milliseconds from the launch to the first 200 and exits at
# once, stopping the agent. Timed from outside (a whole-process timer around this script, A against B in turns)
# it gives launch-to-ready wall time; its own line is the same figure without this script's set-up.
# Usage: bench/first-healthz.sh BUNDLE_DIR   (gives up after 60 s)
set -euo pipefail
dir=$(cd "$1" && pwd)
work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s/^  listen: .*/  listen: 127.0.0.1:$port/" "$dir/config/tailwatch.yaml" >"$work/tailwatch.yaml"
mkdir -p "$work/home" "$work/data"
t0=$(date +%s%N)
HOME=$work/home XDG_CACHE_HOME=$work/home/.cache TAILWATCH_DATA_DIR=$work/data \
  "$dir/bin/tailwatch" run --config "$work/tailwatch.yaml" >"$work/agent.log" 2>&1 &
agent=$!
# Stopped with KILL and not waited for: its shutdown is not part of the figure.
trap 'kill -KILL $agent 2>/dev/null; rm -rf "$work" 2>/dev/null || true' EXIT
for _ in $(seq 1 6000); do
  code=$(curl -s -m 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz" || true)
  if [ "$code" = 200 ]; then
    echo "first 200 on /healthz after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
    exit 0
  fi
  kill -0 "$agent" 2>/dev/null || { echo "the agent exited: $(tail -3 "$work/agent.log")" >&2; exit 1; }
  sleep 0.01
done
echo "no 200 on /healthz within 60 s" >&2
exit 1
