#!/usr/bin/env bash
# Resident memory of a proxied daemon over MINUTES: the agent with the JVM flags bin/tailwatch gives a daemon whose
# config has a proxy (launchd/jvm.options, then launchd/jvm-proxy.options), one simulated OpenAI-compatible engine
# (`tailwatch simulate`, 50 ms TTFT, 200 tokens/s, 8 slots) probed at the shipped defaults and proxied, and through the
# proxy a steady stream of real-looking traffic: CLIENTS clients, each sending one streamed chat request of 64 tokens
# after another with PAUSE seconds between them (about 10,000 requests an hour at the defaults), while /metrics and
# /healthz are asked every 15 s like a Prometheus job and a health checker. One row a minute: minute, RSS (KiB),
# threads, CPU seconds, requests answered so far, to OUT/rss.csv and to standard output; a summary line at the end.
# Loopback only; it stops by itself. Linux only (reads /proc).
# Usage: bench/proxy-hour.sh [MINUTES (60)] [OUT (bench-out/proxy-hour)]
#        (JAR: another jar to run; CLIENTS (2) and PAUSE (0.3) shape the traffic)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-60}
OUT=${2:-bench-out/proxy-hour}
CLIENTS=${CLIENTS:-2}
PAUSE=${PAUSE:-0.3}
[ "$(uname -s)" = Linux ] || { echo "bench/proxy-hour.sh reads /proc: Linux only" >&2; exit 1; }
mkdir -p "$OUT"
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_setup
openai=$(simulator openai --ttft 50ms --tokens-per-second 200 --slots 8)
listen=$(free_port)
cat >"$work/tailwatch.yaml" <<EOF
server:
  listen: 127.0.0.1:0
engines:
  - name: sim
    api: openai
    url: $openai
    proxy:
      listen: 127.0.0.1:$listen
EOF
proxyflags=$(grep -v '^[[:space:]]*\(#\|$\)' launchd/jvm-proxy.options | tr '\n' ' ')
# shellcheck disable=SC2086
start_agent "$work/tailwatch.yaml" "$work/agent.log" $proxyflags
echo "agent pid $agent, port $port, proxy 127.0.0.1:$listen; load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
end=$((SECONDS + MINUTES * 60 + 30))
body='{"model":"sim","stream":true,"max_tokens":64,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"go"}]}'
for c in $(seq 1 "$CLIENTS"); do
  (
    while [ $SECONDS -lt $end ]; do
      curl -s -m 30 -o /dev/null -H 'Content-Type: application/json' -d "$body" \
        "http://127.0.0.1:$listen/v1/chat/completions" && echo >>"$work/answered.$c" || true
      sleep "$PAUSE"
    done
  ) &
  pids+=($!)
done
(
  while [ $SECONDS -lt $end ]; do
    curl -s -m 5 -o /dev/null "http://127.0.0.1:$port/metrics" || true
    curl -s -m 5 -o /dev/null "http://127.0.0.1:$port/healthz" || true
    sleep 15
  done
) &
pids+=($!)
answered() { cat "$work"/answered.* 2>/dev/null | wc -l; }
echo "minute,rss_kib,threads,cpu_s,requests" | tee "$OUT/rss.csv"
start=$SECONDS
max=0
for m in $(seq 1 "$MINUTES"); do
  while [ $((SECONDS - start)) -lt $((m * 60)) ]; do sleep 1; done
  kill -0 "$agent" 2>/dev/null || { echo "the agent exited: $(tail -5 "$work/agent.log")" >&2; exit 1; }
  rss=$(status VmRSS)
  [ "$rss" -gt "$max" ] && max=$rss
  echo "$m,$rss,$(status Threads),$(cpu_seconds),$(answered)" | tee -a "$OUT/rss.csv"
done
awk -v r="$rss" -v m="$max" -v n="$(answered)" -v t="$MINUTES" \
  'BEGIN {printf "after %d min: RSS %.1f MiB, at most %.1f MiB, %d requests proxied\n", t, r / 1024, m / 1024, n}' |
  tee -a "$OUT/summary.txt"
