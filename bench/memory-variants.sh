#!/usr/bin/env bash
# Resident memory of the daemon under different JVM flags or environments, side by side: one agent per
# variant, all started in the same second with the daemon's flags (bench/jvm-flags.sh) plus the variant's
# own, all against the same two simulated engines (one Ollama, one OpenAI-compatible) probed at the
# shipped defaults, each agent's /metrics scraped every 15 s. Running them together puts every variant
# through the same minutes of a shared machine. Loopback only; stops by itself after MINUTES.
# A variant is LABEL=WORDS: words of the form NAME=value set the environment of that agent only, the
# others are JVM flags added after the daemon's (a later flag wins); TAILWATCH_JAR=PATH runs another jar
# for that variant only. `base=` is the daemon as shipped.
# Prints one line per variant: threads, loaded classes and CPU seconds at the end, VmRSS (MiB) every minute.
# Usage: bench/memory-variants.sh MINUTES VARIANT... (e.g. 5 base= arena2=MALLOC_ARENA_MAX=2)
#        (TAILWATCH_JAR: another jar to run; NMT=1 adds -XX:NativeMemoryTracking=summary to every variant
#        and writes each one's summary to OUT/nmt-LABEL.txt at the end; OUT default bench-out/memory-variants)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:?usage: bench/memory-variants.sh MINUTES VARIANT...}
shift
[ $# -gt 0 ] || { echo "no variants given (e.g. base=)" >&2; exit 2; }
JAR=${TAILWATCH_JAR:-agent/target/tailwatch.jar}
OUT=${OUT:-bench-out/memory-variants}
[ "$(uname -s)" = Linux ] || { echo "bench/memory-variants.sh reads /proc: Linux only" >&2; exit 1; }
[ -f "$JAR" ] || mvn -B -q -DskipTests package >/dev/null
flags=$(bench/jvm-flags.sh)
mkdir -p "$OUT"
work=$(mktemp -d)
pids=()
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap cleanup EXIT INT TERM

# More slots than the default two: every agent probes both engines once a minute.
ollama=$(simulator ollama --ttft 100ms --tokens-per-second 200 --slots 16)
openai=$(simulator openai --ttft 100ms --tokens-per-second 200 --slots 16)
two_engine_config "$work/tailwatch.yaml"

nmt=""
[ "${NMT:-0}" = 1 ] && nmt="-XX:NativeMemoryTracking=summary"
labels=()
apids=()
aports=()
for v in "$@"; do
  label=${v%%=*}
  words=${v#*=}
  envs=()
  extra=()
  jar=$JAR
  for w in $words; do
    case $w in
      -*) extra+=("$w") ;;
      TAILWATCH_JAR=*) jar=${w#TAILWATCH_JAR=} ;;
      *=*) envs+=("$w") ;;
      *) echo "variant $label: $w is neither NAME=value nor a -flag" >&2; exit 2 ;;
    esac
  done
  log=$work/agent-$label.log
  # shellcheck disable=SC2086
  env "${envs[@]}" java $flags $nmt "${extra[@]}" -jar "$jar" run --config "$work/tailwatch.yaml" >"$log" 2>&1 &
  pids+=($!)
  labels+=("$label")
  apids+=($!)
done
for i in "${!labels[@]}"; do
  p=""
  for _ in $(seq 1 240); do
    p=$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$work/agent-${labels[$i]}.log" | head -n 1 | sed 's/.*://' || true)
    [ -n "$p" ] && break
    kill -0 "${apids[$i]}" 2>/dev/null || break
    sleep 0.5
  done
  [ -n "$p" ] || { echo "agent ${labels[$i]} did not start: $(cat "$work/agent-${labels[$i]}.log")" >&2; exit 1; }
  aports+=("$p")
done
echo "java: $(java -version 2>&1 | head -n 1); jar: $JAR ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
echo "flags: $flags $nmt; MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-unset}"
echo "engines: $ollama (ollama), $openai (openai); shipped probe defaults; scrape every 15 s; $MINUTES min"

rss() { awk '$1 == "VmRSS:" {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
declare -A curve
start=$SECONDS
next_row=$((start + 60))
next_scrape=$start
failed=0
rows=0
while [ $rows -lt "$MINUTES" ]; do
  if [ $SECONDS -ge $next_scrape ]; then
    for i in "${!labels[@]}"; do
      kill -0 "${apids[$i]}" 2>/dev/null || { echo "agent ${labels[$i]} exited: $(tail -n 20 "$work/agent-${labels[$i]}.log")" >&2; exit 1; }
      code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:${aports[$i]}/metrics" || echo 000)
      [ "$code" = 200 ] || failed=$((failed + 1))
    done
    next_scrape=$((next_scrape + 15))
  fi
  if [ $SECONDS -ge $next_row ]; then
    for i in "${!labels[@]}"; do curve[$i]="${curve[$i]:-} $(rss "${apids[$i]}")"; done
    rows=$((rows + 1))
    next_row=$((next_row + 60))
  fi
  sleep 1
done
printf '%-16s %7s %7s %6s  %s\n' variant threads classes "CPU s" "VmRSS MiB per minute"
for i in "${!labels[@]}"; do
  pid=${apids[$i]}
  threads=$(awk '$1 == "Threads:" {print $2}' "/proc/$pid/status")
  classes=$(jcmd "$pid" VM.classloader_stats 2>/dev/null | awk '$1 == "Total" {print $4}' || true)
  cpu=$(awk -v t="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / t}' "/proc/$pid/stat")
  printf '%-16s %7s %7s %6s %s\n' "${labels[$i]}" "$threads" "${classes:-?}" "$cpu" "${curve[$i]}"
  if [ -n "$nmt" ]; then jcmd "$pid" VM.native_memory summary >"$OUT/nmt-${labels[$i]}.txt" 2>&1 || true; fi
  jcmd "$pid" Thread.print >"$OUT/threads-${labels[$i]}.txt" 2>&1 || true
done
echo "failed scrapes: $failed"
