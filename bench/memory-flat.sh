#!/usr/bin/env bash
# Flat memory: the agent with the daemon's JVM flags (bench/jvm-flags.sh) against two simulated engines
# (one Ollama, one OpenAI-compatible) probed at the shipped defaults (no interval set in the config), its
# /metrics scraped every SCRAPE_SECONDS like a Prometheus job, for HOURS. Loopback only; it stops by
# itself. Writes one CSV row a minute (minute, RSS KiB, threads, CPU s, loaded classes) to OUT/curve.csv,
# and at the end the native-memory summary (NMT), the classes loaded by library, and a summary line:
# resident memory at the end of the first hour and of the last hour, the growth between them, and the
# maximum. NMT costs a little memory of its own; it is summary level, on from the start (NMT=0: off, for
# the resident figure as shipped; the NMT summary is then not written).
# Usage: bench/memory-flat.sh [HOURS (4)] [SCRAPE_SECONDS (15)] [OUT (bench-out/memory-flat)]
#        (TAILWATCH_JAR: another jar to run; MINUTES overrides HOURS for a short trial)
set -euo pipefail
cd "$(dirname "$0")/.."
HOURS=${1:-4}
SCRAPE=${2:-15}
OUT=${3:-bench-out/memory-flat}
MINUTES=${MINUTES:-$((HOURS * 60))}
JAR=${TAILWATCH_JAR:-agent/target/tailwatch.jar}
[ "$(uname -s)" = Linux ] || { echo "bench/memory-flat.sh reads /proc: Linux only" >&2; exit 1; }
[ -f "$JAR" ] || mvn -B -q -DskipTests package >/dev/null
flags=$(bench/jvm-flags.sh)
mkdir -p "$OUT"
# shellcheck source=bench/lib.sh
. bench/lib.sh
two_simulators

two_engine_config "$work/tailwatch.yaml"

nmt_flag=-XX:NativeMemoryTracking=summary
[ "${NMT:-1}" = 0 ] && nmt_flag=-XX:NativeMemoryTracking=off
start_agent "$work/tailwatch.yaml" "$work/agent.log" "$nmt_flag" \
  -Xlog:class+load=info:file="$OUT/classes.log"
{
  echo "java: $(java -version 2>&1 | head -n 1)"
  echo "flags: $flags $nmt_flag"
  echo "jar: $JAR ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
  echo "engines: $ollama (ollama), $openai (openai); shipped probe defaults; scrape every ${SCRAPE}s; ${MINUTES} min"
} | tee "$OUT/header.txt"

classes() { grep -c 'source:' "$OUT/classes.log" 2>/dev/null || echo 0; }

echo "minute,rss_kib,threads,cpu_s,classes_loaded,failed_scrapes" >"$OUT/curve.csv"
start=$SECONDS
end=$((start + MINUTES * 60))
next_row=$((start + 60))
next_scrape=$start
failed=0
minute=0
while [ $SECONDS -lt $end ]; do
  kill -0 "$agent" 2>/dev/null || { echo "agent exited: $(tail -n 20 "$work/agent.log")" >&2; exit 1; }
  if [ $SECONDS -ge $next_scrape ]; then
    code=$(curl -s -o "$work/last.txt" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/metrics" || echo 000)
    [ "$code" = 200 ] || failed=$((failed + 1))
    next_scrape=$((next_scrape + SCRAPE))
  fi
  if [ $SECONDS -ge $next_row ]; then
    minute=$((minute + 1))
    echo "$minute,$(status VmRSS),$(status Threads),$(cpu_seconds),$(classes),$failed" >>"$OUT/curve.csv"
    next_row=$((next_row + 60))
  fi
  sleep 1
done

if [ "$nmt_flag" != -XX:NativeMemoryTracking=off ]; then
  jcmd "$agent" VM.native_memory summary >"$OUT/nmt.txt" 2>&1 || echo "jcmd failed" >"$OUT/nmt.txt"
fi
# Classes by where they came from: the JDK's shared archive, the JDK's modules, or a library in the jar.
awk '/source: shared objects file/ {print "jdk (shared archive)"; next}
     /source: jrt:/ {print "jdk (modules)"; next}
     /source: __JVM_/ || /source: instance of/ {print "generated"; next}
     /source: / {n=$0; sub(/^.*\] /, "", n); sub(/ source:.*/, "", n); split(n, p, "."); print p[1] "." p[2] "." p[3]}' \
  "$OUT/classes.log" | sort | uniq -c | sort -rn >"$OUT/classes-by-library.txt"
awk -F, -v m="$MINUTES" 'NR > 1 {r[$1] = $2; if ($2 > max) max = $2}
  END {h1 = (m >= 60) ? r[60] : r[1]; last = r[m]; if (last == "") last = r[m - 1]; h3 = (m >= 120) ? r[m - 60] : r[1];
       printf "summary: %d min; RSS MiB at minute 60 %.1f, at the end %.1f, growth from minute 60 to the end %.2f; max %.1f\n",
         m, h1 / 1024, last / 1024, (last - h1) / 1024, max / 1024}' "$OUT/curve.csv" | tee "$OUT/summary.txt"
echo "failed scrapes: $failed" | tee -a "$OUT/summary.txt"
