#!/usr/bin/env bash
# What an open status page costs the daemon: three daemons from the release bundle side by side (the
# launcher's flags), all probing the same two engine simulators at the default rates: A is not asked
# anything, C answers GET /api/v1/status every 5 s (curl: what `tailwatch status` or a script costs), and
# B has /ui/ open in headless Chromium (which polls /api/v1/status every 5 s and /api/v1/history every 10 s).
# With NMT=1 all three run with -XX:NativeMemoryTracking=summary and print where their memory is at the end.
# Reports each daemon's VmRSS (every minute and at the end) and CPU seconds (utime+stime) over the steady
# state, the series held by the history ring, and the size of the two JSON answers. Loopback only; bounded
# in time (about STEADY + 1 minute); stops everything it started.
#
# Linux only (reads /proc). usage: bench/status-page-cost.sh [STEADY_SECONDS (default 600)]
# needs: the release bundle (mvn -B -DskipTests package), chromium, curl.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /proc/self ] || { echo "reads /proc: run it on Linux" >&2; exit 1; }
STEADY=${1:-600}
HZ=$(getconf CLK_TCK)
A_PORT=${A_PORT:-19541}; B_PORT=${B_PORT:-19542}; C_PORT=${C_PORT:-19543}
SIM_OLLAMA_PORT=${SIM_OLLAMA_PORT:-19444}; SIM_OPENAI_PORT=${SIM_OPENAI_PORT:-19445}
bundle=$(ls agent/target/tailwatch-*.tar.gz 2>/dev/null | head -n 1 || true)
[ -n "$bundle" ] || { echo "no release bundle: run mvn -B -DskipTests package first" >&2; exit 1; }
CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || { echo "chromium missing: apt-get install chromium" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

tar xzf "$bundle" -C "$work"
tw_dir=$(ls -d "$work"/tailwatch-*)
TAILWATCH_JAVA_OPTS="-Xmx64m" "$tw_dir/bin/tailwatch" simulate --api ollama \
  --listen "127.0.0.1:$SIM_OLLAMA_PORT" --tokens-per-second 60 --ttft 100ms >"$work/sim-ollama.log" 2>&1 &
pids+=($!)
TAILWATCH_JAVA_OPTS="-Xmx64m" "$tw_dir/bin/tailwatch" simulate --api openai \
  --listen "127.0.0.1:$SIM_OPENAI_PORT" --tokens-per-second 60 --ttft 100ms >"$work/sim-openai.log" 2>&1 &
pids+=($!)
# The built-in defaults, engines pointed at the simulators: host every 5 s, one probe per engine per minute.
sed -e "s#http://127.0.0.1:11434#http://127.0.0.1:$SIM_OLLAMA_PORT#" \
    -e "s#http://127.0.0.1:8080#http://127.0.0.1:$SIM_OPENAI_PORT#" "$tw_dir/config/tailwatch.yaml" >"$work/live.yaml"
nmt=""
[ "${NMT:-0}" = 1 ] && nmt="-XX:NativeMemoryTracking=summary"
TAILWATCH_JAVA_OPTS="$nmt" "$tw_dir/bin/tailwatch" run --config "$work/live.yaml" --listen "127.0.0.1:$A_PORT" >"$work/a.log" 2>&1 &
a_pid=$!; pids+=($a_pid)
TAILWATCH_JAVA_OPTS="$nmt" "$tw_dir/bin/tailwatch" run --config "$work/live.yaml" --listen "127.0.0.1:$B_PORT" >"$work/b.log" 2>&1 &
b_pid=$!; pids+=($b_pid)
TAILWATCH_JAVA_OPTS="$nmt" "$tw_dir/bin/tailwatch" run --config "$work/live.yaml" --listen "127.0.0.1:$C_PORT" >"$work/c.log" 2>&1 &
c_pid=$!; pids+=($c_pid)
for port in "$A_PORT" "$B_PORT" "$C_PORT"; do
  for _ in $(seq 1 150); do curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$port/healthz" && break; sleep 0.2; done
done
# bin/tailwatch execs java, so these are the JVMs.
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$work/chromium" --remote-debugging-port=0 \
  "http://127.0.0.1:$B_PORT/ui/" >"$work/chromium.log" 2>&1 &
pids+=($!)
(while :; do curl -s -o /dev/null --max-time 4 "http://127.0.0.1:$C_PORT/api/v1/status"; sleep 5; done) &
pids+=($!)

rss() { awk '/^VmRSS/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }
cpu() { awk -v hz="$HZ" '{printf "%.2f", ($14+$15)/hz}' "/proc/$1/stat"; }
sleep 60   # warm-up: classes loaded, first probes done, the page's first requests served
a0=$(cpu $a_pid); b0=$(cpu $b_pid); c0=$(cpu $c_pid)
echo "minute  RSS MiB: A (no requests)  C (status every 5 s)  B (page open)"
for m in $(seq 1 $((STEADY / 60))); do
  sleep 60
  echo "$m  $(rss $a_pid)  $(rss $c_pid)  $(rss $b_pid)"
done
a1=$(cpu $a_pid); b1=$(cpu $b_pid); c1=$(cpu $c_pid)
for x in "A $a0 $a1 $a_pid" "C $c0 $c1 $c_pid" "B $b0 $b1 $b_pid"; do
  set -- $x
  echo "$1: CPU $(echo "$3 - $2" | bc) s over ${STEADY} s = $(echo "scale=3; 100 * ($3 - $2) / $STEADY" | bc) % of one core; threads $(awk '/^Threads/ {print $2}' /proc/$4/status)"
done
if [ -n "$nmt" ]; then
  for x in "A $a_pid" "C $c_pid" "B $b_pid"; do
    set -- $x
    echo "== $1 native memory (committed KB)"
    jcmd "$2" VM.native_memory summary | grep -E "^(Total|-)" | sed -E 's/\(reserved=[0-9]+KB, //; s/\)$//' | head -20
  done
fi
echo "status JSON bytes: $(curl -s "http://127.0.0.1:$B_PORT/api/v1/status" | wc -c), history JSON bytes: $(curl -s "http://127.0.0.1:$B_PORT/api/v1/history" | wc -c)"
echo "history series: $(curl -s "http://127.0.0.1:$B_PORT/api/v1/history" | grep -c '"chart"')"
