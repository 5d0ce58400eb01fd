#!/usr/bin/env bash
# Soak: the agent with the daemon's JVM flags (launchd/jvm.options) against two simulated engines
# (one Ollama, one OpenAI-compatible) probed every PROBE_SECONDS, its /metrics scraped every second
# (a scrape, then a 1 s pause),
# for MINUTES. Loopback only; bounded in time (it stops by itself) and in requests (one scrape a
# second, one probe per engine per interval). Prints one line a minute and a summary: resident memory
# (first, max, last), threads, scrape time p50/p99/max, failed scrapes, the exposition size, probes
# that succeeded, and the agent's CPU time.
# Usage: bench/soak.sh [MINUTES (20)] [PROBE_SECONDS (3)]   (TAILWATCH_JAR: another jar to run)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=${1:-20}
PROBE=${2:-3}
JAR=${TAILWATCH_JAR:-agent/target/tailwatch.jar}
[ "$(uname -s)" = Linux ] || { echo "bench/soak.sh reads /proc: Linux only" >&2; exit 1; }
if [ ! -f "$JAR" ]; then
  mvn -B -q -DskipTests package >/dev/null
fi
flags=$(bench/jvm-flags.sh)
# shellcheck source=bench/lib.sh
. bench/lib.sh
two_simulators

cat >"$work/tailwatch.yaml" <<EOF
server:
  listen: 127.0.0.1:0
host:
  interval: 5s
engines:
  - name: sim-ollama
    api: ollama
    url: $ollama
    health: {interval: ${PROBE}s, timeout: 2s}
    connect_timeout: 1s
    scenarios:
      - name: interactive
        interval: ${PROBE}s
        max_tokens: 16
        timeouts: {first_token: 2s, total: $((PROBE - 1 > 0 ? PROBE - 1 : 1))s}
  - name: sim-openai
    api: openai
    url: $openai
    health: {interval: ${PROBE}s, timeout: 2s}
    connect_timeout: 1s
    scenarios:
      - name: interactive
        interval: ${PROBE}s
        max_tokens: 16
        timeouts: {first_token: 2s, total: $((PROBE - 1 > 0 ? PROBE - 1 : 1))s}
EOF

start_agent "$work/tailwatch.yaml" "$work/agent.log"
echo "java: $(java -version 2>&1 | head -n 1)"
echo "flags: $flags"
echo "engines: $ollama (ollama), $openai (openai); probes every ${PROBE}s; scrapes every 1s; ${MINUTES} min"


end=$((SECONDS + MINUTES * 60))
times=$work/scrape-ms
: >"$times"
failed=0
scrapes=0
first_rss=""
max_rss=0
next_report=$((SECONDS + 60))
while [ $SECONDS -lt $end ]; do
  kill -0 "$agent" 2>/dev/null || { echo "agent exited: $(tail -n 20 "$work/agent.log")" >&2; exit 1; }
  out=$(curl -s -o "$work/last.txt" -w '%{http_code} %{time_total}' --max-time 5 "http://127.0.0.1:$port/metrics" || echo "000 5")
  scrapes=$((scrapes + 1))
  [ "${out%% *}" = 200 ] || failed=$((failed + 1))
  awk -v s="${out#* }" 'BEGIN {printf "%.1f\n", s * 1000}' >>"$times"
  rss=$(status VmRSS)
  [ -n "$first_rss" ] || first_rss=$rss
  [ "$rss" -gt "$max_rss" ] && max_rss=$rss
  if [ $SECONDS -ge $next_report ]; then
    printf 'minute %3d: RSS %6.1f MiB, threads %s, CPU %.1f s, exposition %s bytes, failed scrapes %d\n' \
      $(((SECONDS - end + MINUTES * 60) / 60)) "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(status Threads)" \
      "$(cpu_seconds)" "$(wc -c <"$work/last.txt")" "$failed"
    next_report=$((next_report + 60))
  fi
  sleep 1
done

ok_probes=$(grep -cE '^tailwatch_probe_success\{[^}]*\} 1(\.0)?$' "$work/last.txt" || true)
sort -n "$times" >"$times.sorted"
n=$(wc -l <"$times.sorted")
p50=$(sed -n "$(((n + 1) / 2))p" "$times.sorted")
p99=$(sed -n "$(((n * 99 + 99) / 100))p" "$times.sorted")
max=$(tail -n 1 "$times.sorted")
echo "summary: ${MINUTES} min, $scrapes scrapes, $failed failed; scrape ms p50 $p50 p99 $p99 max $max;" \
  "RSS MiB first $(awk -v k="$first_rss" 'BEGIN {printf "%.1f", k / 1024}') max $(awk -v k="$max_rss" 'BEGIN {printf "%.1f", k / 1024}')" \
  "last $(awk -v k="$(status VmRSS)" 'BEGIN {printf "%.1f", k / 1024}'); threads $(status Threads);" \
  "agent CPU $(cpu_seconds) s; exposition $(wc -c <"$work/last.txt") bytes; scenarios succeeding $ok_probes/2;" \
  "OutOfMemoryError in log: $(grep -c OutOfMemoryError "$work/agent.log" || true)"
