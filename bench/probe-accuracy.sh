#!/usr/bin/env bash
# Probe measurement accuracy against the engine simulator (loopback only).
# Usage: bench/probe-accuracy.sh [probes per row (10)] [max_tokens (32)]
#          in one warm JVM: each probe against the simulator's own record of its first and last token.
#        bench/probe-accuracy.sh llama [rounds (12)] [max_tokens (64)]
#          against a real llama-server (scripts/llama-root.sh) serving the tiny test model: decode rate
#          against the server's own timings, tokens against max_tokens, TTFT and e2e against a raw-socket
#          client, with --parallel 1 and 4.
#        bench/probe-accuracy.sh cold [rounds (8)] [api (openai)] [both|cli|daemon]
#          a cold `tailwatch probe` (a fresh JVM through the release launcher) and a fresh daemon's first
#          and second probe, each with and without the probe warm-up, against curl on the same simulator
#          request right after it (the daemon's second probe also against curl after 10 s of idle, as
#          long as the simulator sat idle before that probe); curl timed by its own --trace-time clock.
#          Needs curl.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f agent/target/tailwatch.jar ] || [ ! -d agent/target/test-classes/io/tailwatch/bench ]; then
  mvn -B -q -DskipTests package >/dev/null
fi
cp="agent/target/test-classes:agent/target/tailwatch.jar"
if [ "${1:-}" = llama ]; then
  shift
  TAILWATCH_LLAMA_SERVER=${TAILWATCH_LLAMA_SERVER:-$(bash scripts/llama-root.sh)}
  export TAILWATCH_LLAMA_SERVER
  # The server helper waits with Awaitility (and its Hamcrest), and names JUnit's assumption.
  for a in awaitility hamcrest junit-jupiter-api opentest4j; do
    cp="$cp:$(find ~/.m2/repository -name "$a-[0-9]*.jar" ! -name '*sources*' | sort -V | tail -n 1)"
  done
  exec java -cp "$cp" io.tailwatch.bench.RealEngineAccuracyBenchmark "$@"
fi
if [ "${1:-}" = cold ]; then
  shift
  bundle=$(ls agent/target/tailwatch-*.tar.gz | head -n 1)
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  tar xzf "$bundle" -C "$dir"
  launcher=$(ls "$dir"/*/bin/tailwatch)
  java -cp "$cp" io.tailwatch.bench.ColdProbeBenchmark "$launcher" "$@"
  exit
fi
exec java -cp "$cp" io.tailwatch.bench.ProbeAccuracyBenchmark "$@"
