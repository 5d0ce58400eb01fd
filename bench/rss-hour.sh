#!/usr/bin/env bash
# Resident memory of two release bundles side by side (A and B, e.g. an older build and today's), each started
# by its own bin/tailwatch (the launcher's JVM flags and environment) with its own shipped
# config/tailwatch.yaml, only the listen port changed to a free loopback port and the data directory moved to a
# temporary one (HOME too, so neither touches the user's state files). Both run at once on this machine for MINUTES; each /metrics is scraped every 15 s and each
# /healthz asked at the same time, like a Prometheus job and a health checker. One row a minute:
# minute, then RSS (KiB), threads and CPU seconds of A and of B, to OUT/rss.csv and to standard output; a
# summary line at the end (RSS at the last minute and the maximum, A and B). Loopback only; it stops by itself.
# Linux only (reads /proc).
# Usage: bench/rss-hour.sh BUNDLE_DIR_A BUNDLE_DIR_B [MINUTES (60)] [OUT (bench-out/rss-hour)]
#        (a bundle dir is an unpacked release bundle, e.g. agent/target/tailwatch after `mvn -B -DskipTests package`)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
A=$(cd "$1" && pwd)
B=$(cd "$2" && pwd)
MINUTES=${3:-60}
OUT=${4:-bench-out/rss-hour}
[ "$(uname -s)" = Linux ] || { echo "bench/rss-hour.sh reads /proc: Linux only" >&2; exit 1; }
for d in "$A" "$B"; do
  [ -x "$d/bin/tailwatch" ] && [ -f "$d/config/tailwatch.yaml" ] || { echo "$d: not an unpacked bundle (bin/tailwatch, config/tailwatch.yaml)" >&2; exit 2; }
done
mkdir -p "$OUT"
# shellcheck source=bench/lib.sh
. bench/lib.sh
work=$(mktemp -d)
pids=()
trap cleanup EXIT INT TERM

# Starts bundle DIR as NAME; sets the variables NAME_pid and NAME_port.
start_bundle() {
  local dir=$1 name=$2 p log=$work/$2.log
  p=$(free_port)
  sed "s/^  listen: .*/  listen: 127.0.0.1:$p/" "$dir/config/tailwatch.yaml" >"$work/$name.yaml"
  mkdir -p "$work/$name-data" "$work/$name-cache" "$work/$name-home"
  HOME=$work/$name-home TAILWATCH_DATA_DIR=$work/$name-data XDG_CACHE_HOME=$work/$name-cache \
    "$dir/bin/tailwatch" run --config "$work/$name.yaml" >"$log" 2>&1 &
  pids+=($!)
  eval "${name}_pid=$!"
  eval "${name}_port=$p"
}
start_bundle "$A" a
start_bundle "$B" b
for _ in $(seq 1 120); do
  ca=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$a_port/healthz" || true)
  cb=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$b_port/healthz" || true)
  [ "$ca" = 200 ] && [ "$cb" = 200 ] && break
  sleep 0.5
done
[ "$ca" = 200 ] && [ "$cb" = 200 ] || { echo "a bundle did not answer /healthz: $(tail -5 "$work"/a.log "$work"/b.log)" >&2; exit 1; }
echo "A: $A (pid $a_pid, port $a_port)"
echo "B: $B (pid $b_pid, port $b_port)"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"

# The scraper: every 15 s, /metrics and /healthz of both, until the run ends.
(
  end=$((SECONDS + MINUTES * 60 + 30))
  while [ $SECONDS -lt $end ]; do
    for p in "$a_port" "$b_port"; do
      curl -s -m 5 -o /dev/null "http://127.0.0.1:$p/metrics" || true
      curl -s -m 5 -o /dev/null "http://127.0.0.1:$p/healthz" || true
    done
    sleep 15
  done
) &
pids+=($!)

proc() { # PID FIELD: VmRSS (KiB) / Threads from status, or cpu (s) from stat
  if [ "$2" = cpu ]; then awk -v t="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / t}' "/proc/$1/stat"
  else awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; fi
}
row() {
  local m=$1
  echo "$m,$(proc "$a_pid" VmRSS),$(proc "$a_pid" Threads),$(proc "$a_pid" cpu),$(proc "$b_pid" VmRSS),$(proc "$b_pid" Threads),$(proc "$b_pid" cpu)"
}
echo "minute,a_rss_kib,a_threads,a_cpu_s,b_rss_kib,b_threads,b_cpu_s" | tee "$OUT/rss.csv"
start=$SECONDS
for m in $(seq 1 "$MINUTES"); do
  while [ $((SECONDS - start)) -lt $((m * 60)) ]; do sleep 1; done
  kill -0 "$a_pid" 2>/dev/null && kill -0 "$b_pid" 2>/dev/null || { echo "an agent exited: $(tail -5 "$work"/a.log "$work"/b.log)" >&2; exit 1; }
  row "$m" | tee -a "$OUT/rss.csv"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -F, 'NR > 1 {la = $2; lb = $5; if ($2 > ma) ma = $2; if ($5 > mb) mb = $5}
  END {printf "summary: RSS at minute %d A %.1f MiB, B %.1f MiB; max A %.1f MiB, B %.1f MiB\n", NR - 1, la / 1024, lb / 1024, ma / 1024, mb / 1024}' "$OUT/rss.csv" | tee -a "$OUT/summary.txt"
