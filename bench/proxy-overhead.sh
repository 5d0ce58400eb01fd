#!/usr/bin/env bash
# The metering proxy's cost, the engine reached directly and through the agent's proxy side by side in
# one run (loopback only, the daemon's JVM flags): against the engine simulator, the stamping engine of
# bench/ProxyOverhead.java (per-chunk forwarding time) and, when TAILWATCH_LLAMA_SERVER names a
# llama-server (scripts/llama-root.sh prints one), the real llama-server with the tests' tiny model; at
# concurrency 1 and 8. Then 64 streams held open at once through the proxy: the agent's memory.
# Usage: bench/proxy-overhead.sh [requests (200)] [max_tokens (64)]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
requests=${1:-200}
tokens=${2:-64}
bench_setup

sim=$(simulator openai --ttft 20ms --tokens-per-second 500 --slots 64)
stamp=$(free_port)
# One engine of the config: its name, URL and connection rest, no probes or signals (only the proxy's work
# is measured). The simulator and the stamping engine keep their connections (rest 0s); llama-server needs
# the default rest (docs/proxy.md).
engine_yaml() {
  printf '  - name: %s\n    api: openai\n    url: %s\n    scenarios: []\n    health: {interval: 1h}\n    signals: {source: none}\n    proxy: {listen: 127.0.0.1:0, connection_rest: %s}\n' "$1" "$2" "$3"
}
engines="$(engine_yaml sim "$sim" 0s)
$(engine_yaml stamp "http://127.0.0.1:$stamp" 0s)
"
llama=""
if [ -n "${TAILWATCH_LLAMA_SERVER:-}" ]; then
  models=${TAILWATCH_CACHE:-$HOME/.cache/tailwatch}/models
  model=$(ls -t "$models"/tiny-llama-*.gguf 2>/dev/null | head -1 || true)
  [ -n "$model" ] || { echo "no tiny model in $models: run RealLlamaServerIT once, which writes it" >&2; exit 1; }
  lport=$(free_port)
  "$TAILWATCH_LLAMA_SERVER" -m "$model" --host 127.0.0.1 --port "$lport" --threads 1 --threads-batch 1 -c 4096 \
    --parallel 8 --no-webui >"$work/llama.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$lport/health" >/dev/null 2>&1 && break
    sleep 0.5
  done
  llama=$lport
  engines="$engines$(engine_yaml llama "http://127.0.0.1:$lport" 200ms)
"
fi
printf 'server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n%s' "$engines" >"$work/tailwatch.yaml"
start_agent "$work/tailwatch.yaml" "$work/agent.log"
proxy_of() {
  for _ in $(seq 1 60); do
    p=$(curl -fs "http://127.0.0.1:$port/api/v1/status" | python3 -c "import json,sys
for p in json.load(sys.stdin).get('proxies', []):
    if p['engine'] == '$1' and p['state'] == 'running': print(p['listen'].rsplit(':', 1)[1])" 2>/dev/null || true)
    [ -n "$p" ] && { echo "$p"; return; }
    sleep 0.5
  done
  echo "no proxy for $1: $(cat "$work/agent.log")" >&2
  exit 1
}
sim_port=${sim##*:}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); java $(java -version 2>&1 | head -1)"
echo "agent flags: $flags"
t0=$(cpu_seconds); sleep 10; t1=$(cpu_seconds)
echo "agent idle CPU: $(python3 -c "print(round(($t1 - $t0) * 100, 1))") ms per second (host sampling every 10 s)"
for c in 1 8; do
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  java bench/ProxyOverhead.java run simulator "$sim_port" "$(proxy_of sim)" "$agent" "$c" "$requests" "$tokens"
  java bench/ProxyOverhead.java run stamping "$stamp" "$(proxy_of stamp)" "$agent" "$c" "$requests" "$tokens" "$stamp"
  if [ -n "$llama" ]; then
    CLOSE=1 java -Djdk.httpclient.allowRestrictedHeaders=connection bench/ProxyOverhead.java run llama-server "$llama" "$(proxy_of llama)" "$agent" "$c" "$((requests / 4))" "$tokens"
  fi
done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
java bench/ProxyOverhead.java hold "$(proxy_of sim)" "$agent" 64 2000
echo "agent RSS at the end: $(status VmRSS) KiB, threads $(status Threads); load average $(cut -d' ' -f1-3 /proc/loadavg)"
