#!/usr/bin/env bash
# Footprint of the tailwatch daemon beside Debian's prometheus-node-exporter, side by side:
# resident memory (VmRSS), threads, CPU seconds (utime+stime from /proc/PID/stat), CPU share of one
# core in steady state (both scraped every 15 s, as Prometheus would), and CPU per scrape over a
# bounded run of sequential scrapes. Loopback only; bounded in time (about STEADY + 1 minute).
#
# Linux only: it reads /proc (on a Mac, watch `ps -o rss= -p PID` and `footprint PID` by hand).
#
# usage: scripts/footprint.sh [STEADY_SECONDS (default 180)] [SCRAPES (default 300)]
# needs: the release bundle (mvn -B -DskipTests package), prometheus-node-exporter, curl.
# env:   ENGINES=live   the two default engines (ollama, mlx) are served by two engine simulators
#                       (`tailwatch simulate`, Ollama and OpenAI wire formats, in JVMs of their own
#                       that are not measured), so health checks, engine signals and one probe per
#                       engine per minute run as they would against real engines (default: ENGINES=down,
#                       the built-in defaults with no engine listening)
#        TAILWATCH_CONFIG=FILE to run with a config of your own instead
#        TAILWATCH_JAVA_OPTS is passed through to bin/tailwatch
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /proc/self ] || { echo "footprint.sh reads /proc: run it on Linux" >&2; exit 1; }

STEADY=${1:-180}
SCRAPES=${2:-300}
SCRAPE_EVERY=15
TW_PORT=${TW_PORT:-19531}
NE_PORT=${NE_PORT:-19100}
HZ=$(getconf CLK_TCK)

bundle=$(ls agent/target/tailwatch-*.tar.gz 2>/dev/null | head -n 1 || true)
[ -n "$bundle" ] || { echo "no release bundle: run mvn -B -DskipTests package first" >&2; exit 1; }
NODE_EXPORTER=$(command -v prometheus-node-exporter || true)
[ -n "$NODE_EXPORTER" ] || { echo "prometheus-node-exporter missing: apt-get install prometheus-node-exporter" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl missing" >&2; exit 1; }

ENGINES=${ENGINES:-down}
case $ENGINES in down|live) ;; *) echo "ENGINES must be down or live, not '$ENGINES'" >&2; exit 2 ;; esac
SIM_OLLAMA_PORT=${SIM_OLLAMA_PORT:-19434}
SIM_OPENAI_PORT=${SIM_OPENAI_PORT:-19435}

work=$(mktemp -d)
tw_pid=""; ne_pid=""; sim_pids=""
cleanup() {
  [ -n "$tw_pid" ] && kill "$tw_pid" 2>/dev/null || true
  [ -n "$ne_pid" ] && kill "$ne_pid" 2>/dev/null || true
  for p in $sim_pids; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

tar xzf "$bundle" -C "$work"
tw_dir=$(ls -d "$work"/tailwatch-*)
tw_args=(run --listen "127.0.0.1:$TW_PORT")
if [ "$ENGINES" = live ] && [ -z "${TAILWATCH_CONFIG:-}" ]; then
  # The simulators get a heap of their own; they are not part of what is measured.
  JAVA_TOOL_OPTIONS= TAILWATCH_JAVA_OPTS="-Xmx64m" "$tw_dir/bin/tailwatch" simulate --api ollama \
    --listen "127.0.0.1:$SIM_OLLAMA_PORT" --tokens-per-second 60 --ttft 100ms >"$work/sim-ollama.log" 2>&1 &
  sim_pids="$sim_pids $!"
  JAVA_TOOL_OPTIONS= TAILWATCH_JAVA_OPTS="-Xmx64m" "$tw_dir/bin/tailwatch" simulate --api openai \
    --listen "127.0.0.1:$SIM_OPENAI_PORT" --tokens-per-second 60 --ttft 100ms >"$work/sim-openai.log" 2>&1 &
  sim_pids="$sim_pids $!"
  # The built-in defaults with the two engines' URLs pointed at the simulators (everything else default:
  # health every 15 s, engine signals every 15 s, one probe per engine per minute).
  sed -e "s#http://127.0.0.1:11434#http://127.0.0.1:$SIM_OLLAMA_PORT#" \
      -e "s#http://127.0.0.1:8080#http://127.0.0.1:$SIM_OPENAI_PORT#" "$tw_dir/config/tailwatch.yaml" >"$work/live.yaml"
  TAILWATCH_CONFIG="$work/live.yaml"
  for port in "$SIM_OLLAMA_PORT" "$SIM_OPENAI_PORT"; do
    for _ in $(seq 1 100); do
      curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/" && break  # any HTTP answer will do
      sleep 0.2
    done
  done
fi
[ -n "${TAILWATCH_CONFIG:-}" ] && tw_args+=(--config "$TAILWATCH_CONFIG")
"$tw_dir/bin/tailwatch" "${tw_args[@]}" >"$work/tw.log" 2>&1 &
tw_pid=$!
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NE_PORT" >"$work/ne.log" 2>&1 &
ne_pid=$!

TW_URL="http://127.0.0.1:$TW_PORT/metrics"
NE_URL="http://127.0.0.1:$NE_PORT/metrics"
wait_up() { # url pid
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "process $2 exited while starting" >&2; cat "$work"/*.log >&2; exit 1; }
    sleep 0.2
  done
  echo "$1 did not answer within 20 s" >&2; exit 1
}
wait_up "$TW_URL" "$tw_pid"
wait_up "$NE_URL" "$ne_pid"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # utime + stime, in clock ticks
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
threads() { awk '$1 == "Threads:" {print $2}' "/proc/$1/status"; }
series() { curl -fsS --max-time 5 "$1" | grep -vc '^#'; }

scrape_both() { curl -fsS -o /dev/null --max-time 5 "$TW_URL"; curl -fsS -o /dev/null --max-time 5 "$NE_URL"; }

echo "tailwatch: $tw_dir (pid $tw_pid), flags from launchd/jvm.options ${TAILWATCH_JAVA_OPTS:+plus $TAILWATCH_JAVA_OPTS}"
echo "engines: $ENGINES${TAILWATCH_CONFIG:+ (config $TAILWATCH_CONFIG)}"
echo "node_exporter: $($NODE_EXPORTER --version 2>&1 | head -n 1) (pid $ne_pid)"
echo "warm-up 30 s, then steady state ${STEADY} s with a scrape of each every ${SCRAPE_EVERY} s, then ${SCRAPES} sequential scrapes of each"

end=$((SECONDS + 30)); while [ $SECONDS -lt $end ]; do scrape_both; sleep $SCRAPE_EVERY; done

tw0=$(cpu_ticks "$tw_pid"); ne0=$(cpu_ticks "$ne_pid"); t0=$(date +%s.%N)
tw_rss_max=0; ne_rss_max=0; n_steady=0
end=$((SECONDS + STEADY))
while [ $SECONDS -lt $end ]; do
  scrape_both; n_steady=$((n_steady + 1))
  for _ in $(seq 1 $SCRAPE_EVERY); do
    r=$(status_kb "$tw_pid" VmRSS); [ "$r" -gt "$tw_rss_max" ] && tw_rss_max=$r
    r=$(status_kb "$ne_pid" VmRSS); [ "$r" -gt "$ne_rss_max" ] && ne_rss_max=$r
    [ $SECONDS -lt $end ] || break
    sleep 1
  done
done
tw1=$(cpu_ticks "$tw_pid"); ne1=$(cpu_ticks "$ne_pid"); t1=$(date +%s.%N)
tw_rss=$(status_kb "$tw_pid" VmRSS); ne_rss=$(status_kb "$ne_pid" VmRSS)
tw_thr=$(threads "$tw_pid"); ne_thr=$(threads "$ne_pid")

per_scrape() { # url pid -> CPU ms per scrape of that process
  local a b
  a=$(cpu_ticks "$2")
  for _ in $(seq 1 "$SCRAPES"); do curl -fsS -o /dev/null --max-time 5 "$1"; done
  b=$(cpu_ticks "$2")
  awk -v d=$((b - a)) -v hz="$HZ" -v n="$SCRAPES" 'BEGIN {printf "%.2f", d * 1000 / hz / n}'
}
tw_scrape=$(per_scrape "$TW_URL" "$tw_pid")
ne_scrape=$(per_scrape "$NE_URL" "$ne_pid")
tw_series=$(series "$TW_URL"); ne_series=$(series "$NE_URL")
tw_rss_after=$(status_kb "$tw_pid" VmRSS); ne_rss_after=$(status_kb "$ne_pid" VmRSS)
tw_total=$(cpu_ticks "$tw_pid"); ne_total=$(cpu_ticks "$ne_pid")

pct() { awk -v d="$1" -v hz="$HZ" -v t0="$t0" -v t1="$t1" 'BEGIN {printf "%.3f", d / hz / (t1 - t0) * 100}'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
secs() { awk -v t="$1" -v hz="$HZ" 'BEGIN {printf "%.2f", t / hz}'; }

echo
printf '| %-44s | %-12s | %-12s |\n' "measure" "tailwatch" "node_exporter"
printf '|%s|%s|%s|\n' "----------------------------------------------" "--------------" "--------------"
printf '| %-44s | %-12s | %-12s |\n' "RSS at end of steady state (MiB)" "$(mib "$tw_rss")" "$(mib "$ne_rss")"
printf '| %-44s | %-12s | %-12s |\n' "RSS max during steady state (MiB)" "$(mib "$tw_rss_max")" "$(mib "$ne_rss_max")"
printf '| %-44s | %-12s | %-12s |\n' "RSS after the scrape run (MiB)" "$(mib "$tw_rss_after")" "$(mib "$ne_rss_after")"
printf '| %-44s | %-12s | %-12s |\n' "threads" "$tw_thr" "$ne_thr"
printf '| %-44s | %-12s | %-12s |\n' "CPU s in steady state (${STEADY} s, ${n_steady} scrapes)" "$(secs $((tw1 - tw0)))" "$(secs $((ne1 - ne0)))"
printf '| %-44s | %-12s | %-12s |\n' "CPU % of one core in steady state" "$(pct $((tw1 - tw0)))" "$(pct $((ne1 - ne0)))"
printf '| %-44s | %-12s | %-12s |\n' "CPU ms per scrape (${SCRAPES} sequential)" "$tw_scrape" "$ne_scrape"
printf '| %-44s | %-12s | %-12s |\n' "series per scrape" "$tw_series" "$ne_series"
printf '| %-44s | %-12s | %-12s |\n' "CPU s since start (incl. start-up)" "$(secs "$tw_total")" "$(secs "$ne_total")"
