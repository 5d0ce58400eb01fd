# Shared by the benchmark scripts beside it (source it; it starts nothing by itself). Loopback only.
# Callers set JAR and work (a temporary directory) and keep the array pids, which cleanup() kills.

# The environment bin/tailwatch gives the JVM on Linux: two glibc malloc arenas (a value already set wins).
[ "$(uname -s)" != Linux ] || export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}

# Kills every process started through these functions and removes $work. A simulator is started in a
# command substitution (a subshell), so its pid is kept in $work/pids rather than in the array.
cleanup() {
  # shellcheck disable=SC2046
  for p in "${pids[@]}" $(cat "$work/pids" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}

# Sets up a benchmark of the shipped jar: JAR (built when missing), the daemon's JVM flags in flags, a new
# $work with the cleanup trap, and an empty pids array.
bench_setup() {
  JAR=${JAR:-agent/target/tailwatch.jar}
  [ -f "$JAR" ] || mvn -B -q -DskipTests package >/dev/null
  flags=$(bench/jvm-flags.sh)
  work=$(mktemp -d)
  pids=()
  trap cleanup EXIT INT TERM
}

# Prints a free loopback port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Makes $work and the cleanup trap, and starts two simulators: sets ollama and openai to their URLs.
two_simulators() {
  work=$(mktemp -d)
  pids=()
  trap cleanup EXIT INT TERM
  ollama=$(simulator ollama)
  openai=$(simulator openai)
}

# Writes a config of the two simulators ($ollama, $openai) at the shipped probe defaults to FILE.
two_engine_config() {
  cat >"$1" <<EOF
server:
  listen: 127.0.0.1:0
engines:
  - name: sim-ollama
    api: ollama
    url: $ollama
  - name: sim-openai
    api: openai
    url: $openai
EOF
}

# Starts an engine simulator (API: ollama or openai) on a free port and prints its URL; extra arguments
# go to `tailwatch simulate` (default: 100 ms TTFT, 200 tokens/s, 2 slots).
simulator() {
  local api=$1 log=$work/sim-$1-$RANDOM.log
  shift
  [ $# -gt 0 ] || set -- --ttft 100ms --tokens-per-second 200 --slots 2
  java -Xmx64m -jar "$JAR" simulate --api "$api" --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
  echo $! >>"$work/pids"
  for _ in $(seq 1 120); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$log" | head -n 1 || true)
    [ -n "$url" ] && { echo "$url"; return; }
    sleep 0.5
  done
  echo "simulator $api did not start: $(cat "$log")" >&2
  exit 1
}

# Starts the agent (`tailwatch run --config CONFIG`) with the JVM flags in $flags plus any extra
# arguments given before the config, logging to LOG; sets agent (its pid) and port (where it listens).
start_agent() {
  local config=$1 log=$2
  shift 2
  # shellcheck disable=SC2086
  java $flags "$@" -jar "$JAR" run --config "$config" >"$log" 2>&1 &
  agent=$!
  pids+=($agent)
  port=""
  for _ in $(seq 1 120); do
    port=$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$log" | head -n 1 | sed 's/.*://' || true)
    [ -n "$port" ] && return
    sleep 0.5
  done
  echo "agent did not start: $(cat "$log")" >&2
  exit 1
}

# A field of the agent's /proc/PID/status, such as VmRSS (KiB) or Threads.
status() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$agent/status"; }

# The agent's CPU time so far, user and system, in seconds.
cpu_seconds() { awk -v t="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / t}' "/proc/$agent/stat"; }
