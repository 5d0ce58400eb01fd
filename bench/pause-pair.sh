#!/usr/bin/env bash
# bench/pause-cost.sh for two or more builds or flag sets at once, paired: every variant's agent runs at the same
# time (no engine, loopback only), the spaced requests go to each in turn (each agent still sees one every SPACING
# s) and the back-to-back ones right after one another, so all variants share the machine's minutes. Per request:
# "proc" is utime+stime of /proc/PID/stat minus the idle window's rate (10 ms ticks), "req" the run time in
# nanoseconds (/proc/PID/task/*/schedstat) of every thread but the host samplers and the JVM's periodic ones,
# minus their idle rate: a thread's delta is taken only over threads alive at the end (a pool thread that ended
# after its idle timeout takes only its idle time with it), "http" the part on the tailwatch-http threads.
# WARM=0 skips the 500 back-to-back requests to each path (as a scraper meets a fresh agent: 50 spaced requests
# before the measured ones instead). Stops by itself.
# Usage: bench/pause-pair.sh ROUNDS SPACED B2B SPACING LABEL=JAR[,JVM_OPTIONS_FILE] ...
#        e.g. bench/pause-pair.sh 2 100 600 0.6 old=/tmp/old.jar,/tmp/old-jvm.options new=agent/target/tailwatch.jar
#        (no options file: launchd/jvm.options of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
[ $# -ge 5 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
rounds=$1 spaced=$2 b2b=$3 spacing=$4
shift 4
work=$(mktemp -d)
pids=()
trap cleanup EXIT INT TERM
printf 'server:\n  listen: 127.0.0.1:0\nengines: []\n' >"$work/tailwatch.yaml"
trim=""
if java -XX:TrimNativeHeapInterval=60000 -version >/dev/null 2>&1; then trim=-XX:TrimNativeHeapInterval=60000; fi
specs=()
for v in "$@"; do
  label=${v%%=*} rest=${v#*=}
  jar=${rest%%,*} opts=launchd/jvm.options
  [ "$rest" = "$jar" ] || opts=${rest#*,}
  # shellcheck disable=SC2046
  set -f
  java $(grep -v '^[[:space:]]*\(#\|$\)' "$opts" | tr '\n' ' ') $trim -jar "$jar" run --config "$work/tailwatch.yaml" \
    >"$work/$label.log" 2>&1 &
  set +f
  pids+=($!)
  pid=$!
  port=""
  for _ in $(seq 1 120); do
    port=$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$work/$label.log" | head -n 1 | sed 's/.*://' || true)
    [ -n "$port" ] && break
    sleep 0.5
  done
  [ -n "$port" ] || { echo "$label did not start: $(cat "$work/$label.log")" >&2; exit 1; }
  specs+=("$label:$pid:$port")
done
echo "machine: $(nproc) cores; java $(java -version 2>&1 | head -1)"
WARM=${WARM:-1} python3 - "$rounds" "$spaced" "$b2b" "$spacing" "${specs[@]}" <<'EOF'
import os, socket, sys, time
rounds, nsp, nb2b, gap = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
agents = [a.split(':') for a in sys.argv[5:]]
HZ = os.sysconf('SC_CLK_TCK')
BACKGROUND = ('tailwatch-host', 'tailwatch-sampl', 'Native Heap Tri', 'Monitor Deflati', 'VM Periodic Tas')

def ticks(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(')', 1)[1].split()
    return int(f[11]) + int(f[12])

def threads(pid):
    d = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            d[t] = (open(f"/proc/{pid}/task/{t}/comm").read().strip(),
                    int(open(f"/proc/{pid}/task/{t}/schedstat").read().split()[0]))
        except OSError:
            pass
    return d

def snap():
    return {lab: (ticks(pid), threads(pid), time.time()) for lab, pid, _ in agents}

def runtime(x, y):
    req = http = 0
    for t, (name, ns) in y.items():
        d = ns - x.get(t, (name, 0))[1]
        if not name.startswith(BACKGROUND):
            req += d
        if name.startswith('tailwatch-http'):
            http += d
    return req / 1e6, http / 1e6

def one(port, path):
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % path).encode())
    while s.recv(65536):
        pass
    s.close()

def spaced_round(path, n):
    for _ in range(n):
        for _, _, port in agents:
            one(port, path)
            time.sleep(gap / len(agents))

def report(tag, a, b, n, idle):
    for lab, pid, _ in agents:
        x, y = a[lab], b[lab]
        dt = y[2] - x[2]
        proc = (y[0] - x[0]) * 1000 / HZ
        req, http = runtime(x[1], y[1])
        ip, ir = idle.get(lab, (0, 0))
        print(f"{tag:24s} {lab:10s} proc {(proc - ip * dt) / n:6.3f}  req {(req - ir * dt) / n:6.3f}  http {http / n:6.3f} ms/request",
              flush=True)

print("load", open('/proc/loadavg').read().strip())
warm = os.environ.get('WARM', '1') != '0'
if warm:
    for _, _, port in agents:
        for p in ('/healthz', '/metrics'):
            for _ in range(500):
                one(port, p)
time.sleep(5)
for r in range(rounds):
    a = snap(); time.sleep(30); b = snap()
    idle = {}
    for lab, _, _ in agents:
        dt = b[lab][2] - a[lab][2]
        idle[lab] = ((b[lab][0] - a[lab][0]) * 1000 / HZ / dt, runtime(a[lab][1], b[lab][1])[0] / dt)
        print(f"round {r} idle {lab}: proc {idle[lab][0]:.3f} ms/s, req {idle[lab][1]:.3f} ms/s")
    for path in ('/healthz', '/metrics'):
        if not warm and r == 0:
            spaced_round(path, 50)
        a = snap(); spaced_round(path, nsp); b = snap()
        report(f"r{r} {path} spaced {gap}s", a, b, nsp, idle)
        a = snap()
        for _, _, port in agents:
            for _ in range(nb2b):
                one(port, path)
        b = snap()
        report(f"r{r} {path} back-to-back", a, b, nb2b, {})
    print("load", open('/proc/loadavg').read().strip(), flush=True)
EOF
