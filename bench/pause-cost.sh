#!/usr/bin/env bash
# The agent's CPU per request, spaced as a scraper and a health checker send them (one every SPACING s) and back
# to back, on /healthz and /metrics (loopback only). The shipped jar with the daemon's JVM flags and no engine;
# each request on a new connection, as a scraper every 15 s makes it. CPU is utime+stime of /proc/PID/stat over
# the requests minus the idle window's rate (10 ms clock ticks: enough requests make the tick small beside the
# total), and the part on the HTTP threads (the Jetty pool "tailwatch-http" and its selector and acceptor,
# from /proc/PID/task/*/stat; a pool thread that ends during a window takes its ticks with it, so that column
# can read low or negative: the process column is the figure).
# Usage: bench/pause-cost.sh [spaced requests (100)] [back-to-back requests (1000)] [spacing s (0.6)]
#        (JAR: another jar; JAVA_EXTRA: more JVM flags after the daemon's, e.g. to try one)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
spaced=${1:-100}
b2b=${2:-1000}
spacing=${3:-0.6}
bench_setup
flags="$flags ${JAVA_EXTRA:-}"
hz=$(getconf CLK_TCK)

cat >"$work/tailwatch.yaml" <<EOF
server:
  listen: 127.0.0.1:0
engines: []
EOF
start_agent "$work/tailwatch.yaml" "$work/agent.log"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$agent/stat"; }
# Ticks of the threads whose name starts with tailwatch-http (the pool, its selector and acceptor).
http_ticks() {
  local sum=0 t
  for t in /proc/"$agent"/task/*; do
    if grep -q '^tailwatch-http' "$t/comm" 2>/dev/null; then
      sum=$((sum + $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)))
    fi
  done
  echo "$sum"
}

# N requests to PATH, SPACING seconds apart (0: back to back), each on a new connection.
requests() {
  python3 - "$port" "$1" "$2" "$3" <<'EOF'
import socket, sys, time
port, path, n, gap = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
req = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode()
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(req)
    while s.recv(65536):
        pass
    s.close()
    if gap > 0:
        time.sleep(gap)
EOF
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); java $(java -version 2>&1 | head -1); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "warming: 500 requests to each path back to back"
requests /healthz 500 0
requests /metrics 500 0
sleep 5
idle_s=30
c0=$(cpu_ticks); h0=$(http_ticks); sleep "$idle_s"; c1=$(cpu_ticks); h1=$(http_ticks)
idle_rate=$(echo "($c1 - $c0) / $idle_s" | bc -l)
echo "idle: $((c1 - c0)) ticks in ${idle_s} s ($((h1 - h0)) on the HTTP threads)"
printf '%-9s %-13s %9s %12s %14s\n' path mode requests "ms/request" "HTTP ms/req"
for path in /healthz /metrics; do
  for mode in spaced back-to-back; do
    if [ "$mode" = spaced ]; then n=$spaced; gap=$spacing; else n=$b2b; gap=0; fi
    c0=$(cpu_ticks); h0=$(http_ticks); t0=$(date +%s.%N)
    requests "$path" "$n" "$gap"
    c1=$(cpu_ticks); h1=$(http_ticks); t1=$(date +%s.%N)
    ms=$(echo "(($c1 - $c0) - $idle_rate * ($t1 - $t0)) * 1000 / $hz / $n" | bc -l)
    hms=$(echo "($h1 - $h0) * 1000 / $hz / $n" | bc -l)
    printf '%-9s %-13s %9d %12.2f %14.2f\n' "$path" "$mode" "$n" "$ms" "$hms"
  done
done
