#!/usr/bin/env bash
# How little a proxy can add on this machine, beside the agent's own, in one run (loopback only): the stamping
# engine of bench/ProxyOverhead.java reached directly and, in turn, through
#   - a plain TCP relay (ProxyOverhead relay: no HTTP at all),
#   - nginx, Debian's package, as a streaming reverse proxy (one worker, no buffering, kept engine connections;
#     skipped when nginx is not installed),
#   - a bare Netty forwarder (bench/NettyFloor.java; its jars are fetched from Maven Central when missing),
#   - the agent's metering proxy (connection_rest 0s, the JVM flags bin/tailwatch gives a daemon whose config has a
#     proxy: launchd/jvm.options, then launchd/jvm-proxy.options),
# each warmed with WARM requests first (at concurrency 8, then a tenth as many at 1, so that a JVM's per-request code is compiled too: with
# C1 alone a method is compiled after a few hundred calls, and 300 requests left some of the request path
# interpreted; C2 compiles the hot path again over the first thousands), then REQUESTS requests each way at
# concurrency 1 and 8.
# The default warm-up is 10,000 requests: C2 compiles a method after thousands of calls, and the methods a request
# (not a token) runs are called once a request, so after 3,000 the measured runs still paid for their compilation
# (the compiler threads' CPU is printed apart when there is any). A proxy in service passes that count in its first
# hours; the measured runs are its steady state. Then 1,000 at concurrency 1. About 3 minutes per proxy.
# Usage: bench/proxy-floor.sh [requests (200)] [warm (10000)]
# PROXIES picks which run, in this order (default all: relay nginx netty agent); JAR picks the agent's jar, so
# two builds of the agent can be compared in one sitting (PROXIES=agent JAR=/other/tailwatch.jar). JAVA_EXTRA adds JVM
# flags after the daemon's own (a later flag wins), for the agent only: JAVA_EXTRA='-XX:TieredStopAtLevel=1
# -XX:CICompilerCount=1 -XX:ReservedCodeCacheSize=16m' measures the proxy without its JIT flags (C1 alone, as a daemon
# without a proxy runs); a JFR recording is taken the same way (-XX:StartFlightRecording=...). FLAG_SETS
# measures several such sets one after another in the same run (see the agent's part below).
# RACE=1 measures the chosen proxies in one run instead of one after another: each started and warmed, then every
# request of a worker goes direct and through each proxy in turn (ProxyOverhead race), so each proxy's figures come
# from the same minutes of the machine; the first proxy in PROXIES is the one the others are held against
# (RACE=1 PROXIES="nginx agent": the agent's ratios to nginx, printed after each concurrency). Each race first runs
# RACE_WARM requests each way unrecorded (default 600), so that the client's own JIT has settled when it measures.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
requests=${1:-200}
warm=${2:-10000}
tokens=64
bench_setup
stamp=$(free_port)
proxies=" ${PROXIES:-relay nginx netty agent} "

# Warms PROXY (pid PID) and then measures it: LABEL PROXY_PORT PID.
measure() {
  java bench/ProxyOverhead.java run warm "$stamp" "$2" "$3" 8 "$warm" "$tokens" "$stamp" >/dev/null
  # Then a tenth as many at concurrency 1: C2 compiles a path again when it first sees it (a warm-up client that
  # leaves, one request at a time), and those compilations belong to the warm-up, not to the measured runs.
  java bench/ProxyOverhead.java run warm "$stamp" "$2" "$3" 1 $((warm / 10)) "$tokens" "$stamp" >/dev/null
  for c in 1 8; do
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    java bench/ProxyOverhead.java run "$1" "$stamp" "$2" "$3" "$c" "$requests" "$tokens" "$stamp"
  done
}
await_port() {
  for _ in $(seq 1 120); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return
    sleep 0.25
  done
  echo "nothing listens on $1" >&2
  exit 1
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# Each start_* starts one proxy in front of the stamping engine's port and sets listen (its port) and pid (the process
# that forwards: nginx's worker, not its master); stop_all ends every one started.
started=()
stop_all() {
  for p in "${started[@]}"; do stop "$p"; done
  started=()
}
start_relay() {
  listen=$(free_port)
  # shellcheck disable=SC2086
  java $flags bench/ProxyOverhead.java relay "$listen" "$stamp" >"$work/relay.log" 2>&1 &
  pid=$!
  started+=("$pid")
  # (Not probed by connecting: the relay would connect on to the engine, which starts with each run.)
  for _ in $(seq 1 120); do grep -q "^relay " "$work/relay.log" && break; sleep 0.25; done
}
start_nginx() {
  listen=$(free_port)
  mkdir -p "$work/nginx/logs"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events { worker_connections 256; }
http {
  access_log off;
  upstream engine { server 127.0.0.1:$stamp; keepalive 16; }
  server {
    listen 127.0.0.1:$listen;
    location / {
      proxy_pass http://engine;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      tcp_nodelay on;
    }
  }
}
EOF
  "$(command -v nginx || echo /usr/sbin/nginx)" -c "$work/nginx/nginx.conf" -p "$work/nginx" >"$work/nginx.log" 2>&1 &
  local master=$!
  started+=("$master")
  await_port "$listen"
  pid=$(pgrep -P "$master" | head -1)
}
start_netty() {
  local cp="" jar a
  for a in common buffer transport resolver codec-base codec-http handler; do
    jar=$HOME/.m2/repository/io/netty/netty-$a/4.2.21.Final/netty-$a-4.2.21.Final.jar
    [ -f "$jar" ] || mvn -B -q dependency:get -Dartifact="io.netty:netty-$a:4.2.21.Final" -Dtransitive=false >/dev/null
    cp="$cp$jar:"
  done
  listen=$(free_port)
  # shellcheck disable=SC2086
  java $flags -cp "$cp" bench/NettyFloor.java "$listen" "$stamp" >"$work/netty.log" 2>&1 &
  pid=$!
  started+=("$pid")
  await_port "$listen"
}
# The agent with a proxied daemon's flags (launchd/jvm.options, then launchd/jvm-proxy.options), then EXTRA.
proxyflags=$(grep -v '^[[:space:]]*\(#\|$\)' launchd/jvm-proxy.options | tr '\n' ' ')
start_agent_proxy() {
  local extra=$1
  listen=$(free_port)
  printf 'server:\n  listen: 127.0.0.1:0\nhost:\n  interval: 10s\nengines:\n  - name: stamp\n    api: openai\n    url: http://127.0.0.1:%s\n    scenarios: []\n    health: {interval: 1h}\n    signals: {source: none}\n    proxy: {listen: 127.0.0.1:%s, connection_rest: 0s}\n' \
    "$stamp" "$listen" >"$work/tailwatch.yaml"
  # shellcheck disable=SC2086
  start_agent "$work/tailwatch.yaml" "$work/agent.log" $proxyflags $extra
  pid=$agent
  started+=("$pid")
  await_port "$listen"
}
have_nginx() { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; }
label_of() { case $1 in relay) echo "TCP relay" ;; nginx) echo nginx ;; netty) echo "bare Netty" ;; agent) echo "agent proxy" ;; esac; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); java $(java -version 2>&1 | head -1)"

if [ "${RACE:-0}" = 1 ]; then
  # All at once: each started and warmed alone, then raced request by request at concurrency 1 and 8.
  args=()
  for name in $proxies; do
    if [ "$name" = nginx ] && ! have_nginx; then
      echo "nginx: not installed (apt-get install nginx-light), skipped"
      continue
    fi
    case $name in
      relay) start_relay ;;
      nginx) start_nginx ;;
      netty) start_netty ;;
      agent) start_agent_proxy "${JAVA_EXTRA:-}" ;;
      *) echo "PROXIES: unknown proxy '$name' (relay, nginx, netty, agent)" >&2; exit 2 ;;
    esac
    java bench/ProxyOverhead.java run warm "$stamp" "$listen" "$pid" 8 "$warm" "$tokens" "$stamp" >/dev/null
    java bench/ProxyOverhead.java run warm "$stamp" "$listen" "$pid" 1 $((warm / 10)) "$tokens" "$stamp" >/dev/null
    args+=("$(label_of "$name")" "$listen" "$pid")
  done
  for c in 1 8; do
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    java bench/ProxyOverhead.java race "$c" "$requests" "$tokens" "$stamp" "${args[@]}"
  done
  stop_all
  exit 0
fi

if [[ $proxies == *" relay "* ]]; then
  start_relay
  measure "TCP relay" "$listen" "$pid"
  stop_all
fi

if [[ $proxies != *" nginx "* ]]; then
  :
elif have_nginx; then
  start_nginx
  measure "nginx" "$listen" "$pid"
  stop_all
else
  echo "nginx: not installed (apt-get install nginx-light), skipped"
fi

if [[ $proxies == *" netty "* ]]; then
  start_netty
  measure "bare Netty" "$listen" "$pid"
  stop_all
fi

[[ $proxies == *" agent "* ]] || exit 0
# One agent after another, each with a proxied daemon's flags and then one set of FLAG_SETS (';' between sets;
# default one set, JAVA_EXTRA): FLAG_SETS='; -XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:ReservedCodeCacheSize=16m'
# measures the proxy's JIT flags and C1 alone in one sitting.
IFS=';' read -r -a sets <<<"${FLAG_SETS-${JAVA_EXTRA:-}}"
[ ${#sets[@]} -gt 0 ] || sets=("")
for extra in "${sets[@]}"; do
  extra=$(echo "$extra" | xargs)
  start_agent_proxy "$extra"
  measure "agent proxy${extra:+ (+ $extra)}" "$listen" "$pid"
  stop_all
done
