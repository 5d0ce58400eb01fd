#!/usr/bin/env bash
# Scrape scaling: what one /metrics scrape costs the agent as the engines grow, beside node_exporter.
# For each row (engine counts, default "1 10 32"; 32 engines x 2 scenarios = 64 scenarios is the largest
# configuration `tailwatch config check` accepts, and the script shows it refusing one engine or one
# scenario more), the shipped jar runs with the daemon's own JVM flags (bench/jvm-flags.sh) and -Xlog:gc
# against two simulators (one Ollama, one OpenAI-compatible; the engines alternate between them under
# different names), every engine with two probed scenarios at the shipped defaults (health every 15 s,
# a probe per scenario every 60 s, with jitter). Once every scenario has been probed and the
# series count is steady, the agent sits idle for one window (its background CPU and collections), then
# is scraped SCRAPES times without compression and SCRAPES times with gzip (as Prometheus asks), one
# scrape every 0.6 s (past the agent's 0.5 s reuse of a rendering, so every scrape renders), after
# WARMUP warm-up scrapes (default 300, half plain and half gzip): the daemon's C1 compiles a method after
# 100 to 200 calls, and much of a scrape (the connection, Jetty's request handling, each family's
# rendering) runs once a scrape, so until some 200 scrapes have been served part of every scrape is
# interpreted and the compiler thread works beside it. A short warm-up measures that start, not the
# steady cost (at Prometheus' 15 s interval it lasts about 50 minutes).
# Reported per row: series (sample lines), bytes (plain and gzip), CPU ms per scrape (utime+stime from
# /proc/PID/stat over the scrapes minus the idle window's rate; clock ticks of 10 ms, and the probes'
# jitter makes the idle rate a rough guess), the part of it spent on the HTTP worker threads (from
# /proc/PID/task/*/stat: rendering, gzip and the request itself, nothing else), us per series, and
# young / full collections during the scrapes (and idle, for reference). Every scrape is a new curl
# connection (Prometheus keeps its connection open, so it costs the agent a little less).
# node_exporter (apt package prometheus-node-exporter), when installed, is measured the same way on
# 127.0.0.1 only.
# Loopback only; bounded in time (about eight minutes a row at the defaults) and in requests (3 x SCRAPES + WARMUP a row).
# Usage: bench/scrape-scaling.sh [SCRAPES (30)] [ROWS ("1 10 32")]   (TAILWATCH_JAR: another jar; WARMUP)
set -euo pipefail
cd "$(dirname "$0")/.."
SCRAPES=${1:-30}
ROWS=${2:-"1 10 32"}
SPACING=0.6
WARMUP=${WARMUP:-300}
JAR=${TAILWATCH_JAR:-agent/target/tailwatch.jar}
[ "$(uname -s)" = Linux ] || { echo "bench/scrape-scaling.sh reads /proc: Linux only" >&2; exit 1; }
[ -f "$JAR" ] || mvn -B -q -DskipTests package >/dev/null
flags=$(bench/jvm-flags.sh)
tck=$(getconf CLK_TCK)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# Starts a simulator in this shell (so that cleanup kills it) and sets sim_url to its URL.
start_simulator() {
  local api=$1 log=$work/sim-$1.log
  java -Xmx64m -jar "$JAR" simulate --api "$api" --listen 127.0.0.1:0 --ttft 20ms \
    --tokens-per-second 400 --slots 8 >"$log" 2>&1 &
  pids+=($!)
  sim_url=""
  for _ in $(seq 1 120); do
    sim_url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 || true)
    [ -n "$sim_url" ] && return
    sleep 0.5
  done
  echo "simulator $api did not start: $(cat "$log")" >&2
  exit 1
}
start_simulator ollama
ollama=$sim_url
start_simulator openai
openai=$sim_url

# config ENGINES SCENARIOS_PER_ENGINE > file
config() {
  local n=$1 per=$2
  printf 'server:\n  listen: 127.0.0.1:0\nengines:\n'
  for i in $(seq 0 $((n - 1))); do
    local api=ollama url=$ollama
    if [ $((i % 2)) = 1 ]; then api=openai url=$openai; fi
    printf '  - name: e%02d\n    api: %s\n    url: %s\n    scenarios:\n' "$i" "$api" "$url"
    for s in $(seq 1 "$per"); do
      printf '      - name: s%d\n        max_tokens: 16\n' "$s"
    done
  done
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# CPU ticks of the agent's HTTP worker threads (Jetty pool "tailwatch-http"), one "TID TICKS" line each:
# the scrapes' own work, without the probes, samplers and collector that run beside them.
http_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in
      tailwatch-http*) awk -v id="${t##*/}" '{print id, $14 + $15}' "$t/stat" 2>/dev/null || true ;;
    esac
  done
}
# Ticks gained by the threads in AFTER since BEFORE (files of http_ticks; a thread new since counts whole,
# one that ended in between is left out: the pool retires idle workers after 30 s).
http_delta() { awk 'FILENAME == ARGV[1] {b[$1] = $2; next} {d += $2 - b[$1]} END {print d + 0}' "$1" "$2"; }
now() { date +%s.%N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
series() { grep -cv '^\(#\|$\)' "$1"; }

# window PID URL GCLOG CURL-ARGS...: SCRAPES scrapes (none when URL is "-"), one every SPACING s.
# Prints: cpu-ticks seconds young full bytes http-ticks
window() {
  local pid=$1 url=$2 gclog=$3
  shift 3
  local g0=0 c0 t0 bytes=0
  [ "$gclog" = - ] || g0=$(wc -l <"$gclog")
  http_ticks "$pid" >"$work/http0"
  c0=$(cpu_ticks "$pid")
  t0=$(now)
  for _ in $(seq 1 "$SCRAPES"); do
    if [ "$url" != - ]; then
      bytes=$(curl -s -o "$work/body" -w '%{size_download}' --max-time 10 "$@" "$url")
    fi
    sleep "$SPACING"
  done
  local c1 t1 young=- full=-
  c1=$(cpu_ticks "$pid")
  http_ticks "$pid" >"$work/http1"
  t1=$(now)
  if [ "$gclog" != - ]; then
    young=$(tail -n +"$((g0 + 1))" "$gclog" | grep -c 'Pause Young' || true)
    full=$(tail -n +"$((g0 + 1))" "$gclog" | grep -c 'Pause Full' || true)
  fi
  echo "$((c1 - c0)) $(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') $young $full $bytes $(http_delta "$work/http0" "$work/http1")"
}

# row LABEL PID URL GCLOG: idle window, plain scrapes, gzip scrapes; prints one table row.
row() {
  local label=$1 pid=$2 url=$3 gclog=$4
  # Warm-up: the scrape path compiled (C1) as a daemon that has served WARMUP scrapes has it, both encodings.
  SCRAPES=$((WARMUP / 2)) window "$pid" "$url" - >/dev/null
  SCRAPES=$((WARMUP / 2)) window "$pid" "$url" - -H 'Accept-Encoding: gzip' >/dev/null
  read -r ic is iy idlefull _ _ < <(window "$pid" - "$gclog")
  read -r pc ps py pf pb ph < <(window "$pid" "$url" "$gclog")
  local n
  n=$(series "$work/body")
  read -r zc zs zy zf zb zh < <(window "$pid" "$url" "$gclog" -H 'Accept-Encoding: gzip')
  awk -v l="$label" -v n="$n" -v s="$SCRAPES" -v t="$tck" -v ic="$ic" -v is="$is" -v iy="$iy" -v if_="$idlefull" \
    -v pc="$pc" -v ps="$ps" -v py="$py" -v pf="$pf" -v pb="$pb" -v zc="$zc" -v zs="$zs" -v zy="$zy" -v zf="$zf" -v zb="$zb" \
    -v ph="$ph" -v zh="$zh" -v http="$([ "$gclog" = - ] && echo 0 || echo 1)" '
    function ms(c, secs) { v = (c / t - ic / t / is * secs) * 1000 / s; return v < 0 ? 0 : v }
    function hms(h) { return http ? sprintf("%.1f", h / t * 1000 / s) : "-" }
    BEGIN {
      p = ms(pc, ps); z = ms(zc, zs)
      printf "| %s | %d | %d / %d | %.1f / %.1f | %s / %s | %.2f | %s / %s | %s / %s | %s / %s |\n", l, n, pb, zb, p, z,
        hms(ph), hms(zh), p * 1000 / n, py, pf, zy, zf, iy, if_
    }'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "java: $(java -version 2>&1 | head -n 1); flags: $flags"
echo "scrapes per window: $SCRAPES, one every ${SPACING}s, after $WARMUP warm-up scrapes"
echo
echo "| engines x 2 scenarios | series | bytes plain / gzip | process CPU ms/scrape plain / gzip | of it HTTP threads plain / gzip | us/series plain | GC young/full plain | GC young/full gzip | GC young/full idle |"
echo "|---|---|---|---|---|---|---|---|---|"
max=0
for n in $ROWS; do
  [ "$n" -gt "$max" ] && max=$n
  cfg=$work/tailwatch-$n.yaml
  config "$n" 2 >"$cfg"
  java -jar "$JAR" config check "$cfg" >"$work/check-$n.log" 2>&1 || { echo "config check refused $n engines: $(cat "$work/check-$n.log")" >&2; exit 1; }
  gclog=$work/gc-$n.log
  # shellcheck disable=SC2086
  java $flags -Xlog:gc:file="$gclog" -jar "$JAR" run --config "$cfg" >"$work/agent-$n.log" 2>&1 &
  agent=$!
  pids+=($agent)
  port=""
  for _ in $(seq 1 120); do
    port=$(grep -so 'listening on 127\.0\.0\.1:[0-9]*' "$work/agent-$n.log" | head -n 1 | sed 's/.*://' || true)
    [ -n "$port" ] && break
    sleep 0.5
  done
  [ -n "$port" ] || { echo "agent did not start: $(cat "$work/agent-$n.log")" >&2; exit 1; }
  url=http://127.0.0.1:$port/metrics
  # Every scenario probed at least once (all its histograms exist), then a steady series count.
  deadline=$((SECONDS + 150))
  until [ "$(curl -s --max-time 10 "$url" | grep -c '^tailwatch_probe_success{.*} 1' || true)" -ge $((n * 2)) ]; do
    [ $SECONDS -lt $deadline ] || { echo "not every scenario probed within 150 s ($n engines)" >&2; exit 1; }
    kill -0 "$agent" 2>/dev/null || { echo "agent exited: $(tail -n 20 "$work/agent-$n.log")" >&2; exit 1; }
    sleep 1
  done
  sleep 5
  last=-1
  for _ in $(seq 1 15); do
    curl -s --max-time 10 -o "$work/body" "$url"
    cur=$(series "$work/body")
    [ "$cur" = "$last" ] && break
    last=$cur
    sleep 2
  done
  row "$n x 2 ($((n * 2)) scenarios)" "$agent" "$url" "$gclog"
  kill -0 "$agent" 2>/dev/null || { echo "agent exited during the scrapes: $(tail -n 20 "$work/agent-$n.log")" >&2; exit 1; }
  full_total=$(grep -c 'Pause Full' "$gclog" || true)
  kill "$agent"
  wait "$agent" 2>/dev/null || true
  echo "    ($n engines: $(grep -c 'Pause Young' "$gclog" || true) young and $full_total full collections over the agent's whole run, start-up included)" >&2
done

if command -v prometheus-node-exporter >/dev/null || command -v node_exporter >/dev/null; then
  ne=$(command -v prometheus-node-exporter || command -v node_exporter)
  port=$(free_port)
  "$ne" --web.listen-address="127.0.0.1:$port" >"$work/node-exporter.log" 2>&1 &
  nepid=$!
  pids+=($nepid)
  for _ in $(seq 1 40); do
    curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/metrics" && break
    sleep 0.25
  done
  row "node_exporter $("$ne" --version 2>&1 | head -n 1 | awk '{print $3}')" "$nepid" "http://127.0.0.1:$port/metrics" -
fi

# Beyond the largest configuration: config check refuses and names the bound.
echo
config $((max + 1)) 2 >"$work/over-engines.yaml"
config "$max" 3 >"$work/over-scenarios.yaml"
for f in over-engines over-scenarios; do
  set +e
  out=$(java -jar "$JAR" config check "$work/$f.yaml" 2>&1)
  rc=$?
  set -e
  echo "config check, $f: exit $rc: $(echo "$out" | grep -m1 -o 'engines: .*supports' || echo "$out" | head -n 1)"
done
