#!/usr/bin/env bash
# Flat memory: the agent with the daemon's JVM flags (bench/jvm-flags.sh) against two simulated engines
# (one Ollama, one OpenAI-compatible) probed at the shipped defaults (no interval set in the config), its
# /metrics scraped every SCRAPE_SECONDS like a Prometheus job, for HOURS. Loopback only; it stops by
# itself. Writes one CSV row a minute (minute, RSS KiB, threads, CPU s, loaded classes) to OUT/curve.csv,
# and at the end the native-memory summary (NMT), the classes loaded by library, and a summary line:
# resident memory at the end of the first hour and of the last hour, the growth between them, and the
# maximum. NMT costs a little memory of its own; it is summary level, on from the start (NMT=0: off, for
# the resident figure as shipped; the NMT summary is then not written).
# ACCEL=N runs the same work N times faster: every interval of the agent (host sampling, health checks,
# engine signals, probes) and the scrape interval divided by N, for HOURS / N; the minute column then
# counts the agent's minutes of work (real minutes x N). The JIT compiles a method once it has run a
# number of times, so what the agent compiles (the code cache, the part of resident memory that grows)
# follows the work done, not the clock: 24 minutes at ACCEL=10 show four hours of compilation.
# Usage: bench/memory-flat.sh [HOURS (4)] [SCRAPE_SECONDS (15)] [OUT (bench-out/memory-flat)]
#        (TAILWATCH_JAR: another jar to run; MINUTES overrides HOURS for a short trial; JAVA_EXTRA: more
#        JVM flags after the daemon's)
set -euo pipefail
cd "$(dirname "$0")/.."
HOURS=${1:-4}
SCRAPE=${2:-15}
OUT=${3:-bench-out/memory-flat}
ACCEL=${ACCEL:-1}
case $ACCEL in
  '' | *[!0-9]* | 0) echo "ACCEL: a whole number of 1 or more, got '$ACCEL'" >&2; exit 2 ;;
esac
MINUTES=${MINUTES:-$((HOURS * 60))}
JAR=${TAILWATCH_JAR:-agent/target/tailwatch.jar}
[ "$(uname -s)" = Linux ] || { echo "bench/memory-flat.sh reads /proc: Linux only" >&2; exit 1; }
[ -f "$JAR" ] || mvn -B -q -DskipTests package >/dev/null
flags="$(bench/jvm-flags.sh) ${JAVA_EXTRA:-}"
mkdir -p "$OUT"
# shellcheck source=bench/lib.sh
. bench/lib.sh
two_simulators

if [ "$ACCEL" = 1 ]; then
  two_engine_config "$work/tailwatch.yaml"
else
  # The shipped intervals (host 5 s, health and signals 15 s, probes 60 s) divided by ACCEL.
  ms() { awk -v v="$1" -v a="$ACCEL" 'BEGIN {printf "%dms", v / a}'; }
  engine() {
    cat <<EOF
  - name: sim-$1
    api: $1
    url: $2
    health: {interval: $(ms 15000), timeout: $(ms 5000)}
    connect_timeout: $(ms 2000)
    signals: {interval: $(ms 15000)}
    scenarios:
      - name: interactive
        interval: $(ms 60000)
        timeouts: {first_token: $(ms 30000), total: $(ms 45000)}
EOF
  }
  {
    printf 'server:\n  listen: 127.0.0.1:0\nhost:\n  interval: %s\n  timeout: %s\nengines:\n' "$(ms 5000)" "$(ms 2000)"
    engine ollama "$ollama"
    engine openai "$openai"
  } >"$work/tailwatch.yaml"
fi

nmt_flag=-XX:NativeMemoryTracking=summary
[ "${NMT:-1}" = 0 ] && nmt_flag=-XX:NativeMemoryTracking=off
start_agent "$work/tailwatch.yaml" "$work/agent.log" "$nmt_flag" \
  -Xlog:class+load=info:file="$OUT/classes.log"
{
  echo "java: $(java -version 2>&1 | head -n 1)"
  echo "flags: $flags $nmt_flag"
  echo "jar: $JAR ($(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
  echo "engines: $ollama (ollama), $openai (openai); shipped probe defaults; scrape every ${SCRAPE}s; ${MINUTES} min"
  [ "$ACCEL" = 1 ] || echo "accelerated ${ACCEL}x: every interval and the scrape divided by $ACCEL, $((MINUTES / ACCEL)) real minutes"
} | tee "$OUT/header.txt"

classes() { grep -c 'source:' "$OUT/classes.log" 2>/dev/null || echo 0; }

echo "minute,rss_kib,threads,cpu_s,classes_loaded,failed_scrapes,code_kib" >"$OUT/curve.csv"
# Resident KiB of the JIT's code cache: the writable and executable mappings (the code cache is the only
# large one; JNA's few trampolines are a page or two).
code_kib() { awk '/^[0-9a-f]+-[0-9a-f]+ rwxp/ {x = 1; next} /^[0-9a-f]+-[0-9a-f]+ / {x = 0} x && /^Rss:/ {k += $2} END {print k + 0}' "/proc/$agent/smaps"; }
# The scrapes run beside the loop below (sleep takes fractions of a second); each failure is a line.
scrape_every=$(awk -v s="$SCRAPE" -v a="$ACCEL" 'BEGIN {printf "%.3f", s / a}')
(
  while kill -0 "$agent" 2>/dev/null; do
    code=$(curl -s -o "$work/last.txt" -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/metrics" || echo 000)
    [ "$code" = 200 ] || echo "$code" >>"$work/failed"
    sleep "$scrape_every"
  done
) &
pids+=($!)
failed() { if [ -f "$work/failed" ]; then wc -l <"$work/failed" | tr -d ' '; else echo 0; fi; }
# A row per minute of the agent's work: every 60 / ACCEL seconds.
row_every=$(awk -v a="$ACCEL" 'BEGIN {printf "%.3f", 60 / a}')
t0=$(date +%s.%N)
for minute in $(seq 1 "$MINUTES"); do
  # Sleep until this row's moment (start + minute x row_every), so the rows do not drift.
  sleep "$(awk -v t0="$t0" -v m="$minute" -v e="$row_every" -v now="$(date +%s.%N)" 'BEGIN {d = t0 + m * e - now; printf "%.3f", (d > 0 ? d : 0)}')"
  kill -0 "$agent" 2>/dev/null || { echo "agent exited: $(tail -n 20 "$work/agent.log")" >&2; exit 1; }
  echo "$minute,$(status VmRSS),$(status Threads),$(cpu_seconds),$(classes),$(failed),$(code_kib)" >>"$OUT/curve.csv"
done
failed=$(failed)

if [ "$nmt_flag" != -XX:NativeMemoryTracking=off ]; then
  jcmd "$agent" VM.native_memory summary >"$OUT/nmt.txt" 2>&1 || echo "jcmd failed" >"$OUT/nmt.txt"
fi
# Classes by where they came from: the JDK's shared archive, the JDK's modules, or a library in the jar.
awk '/source: shared objects file/ {print "jdk (shared archive)"; next}
     /source: jrt:/ {print "jdk (modules)"; next}
     /source: __JVM_/ || /source: instance of/ {print "generated"; next}
     /source: / {n=$0; sub(/^.*\] /, "", n); sub(/ source:.*/, "", n); split(n, p, "."); print p[1] "." p[2] "." p[3]}' \
  "$OUT/classes.log" | sort | uniq -c | sort -rn >"$OUT/classes-by-library.txt"
# One reading swings by about 1 MiB with the heap's free room, so the growth is also given between the
# means of minutes 51 to 70 and of the last 20 minutes.
awk -F, -v m="$MINUTES" 'NR > 1 {r[$1] = $2; if ($2 > max) max = $2}
  END {h1 = (m >= 60) ? r[60] : r[1]; last = r[m]; if (last == "") last = r[m - 1];
       printf "summary: %d min; RSS MiB at minute 60 %.1f, at the end %.1f, growth from minute 60 to the end %.2f; max %.1f\n",
         m, h1 / 1024, last / 1024, (last - h1) / 1024, max / 1024
       if (m >= 90) {
         for (i = 51; i <= 70; i++) a += r[i]; for (i = m - 19; i <= m; i++) b += r[i]
         printf "means: minutes 51-70 %.2f MiB, minutes %d-%d %.2f MiB, growth %.2f MiB\n", a / 20 / 1024, m - 19, m, b / 20 / 1024, (b - a) / 20 / 1024
       }}' "$OUT/curve.csv" | tee "$OUT/summary.txt"
echo "failed scrapes: $failed" | tee -a "$OUT/summary.txt"
