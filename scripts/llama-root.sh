#!/usr/bin/env bash
# A private root holding llama.cpp's llama-server from Debian's packages, for the real-engine tests.
#
# debian-root.sh (beside this script) downloads llama.cpp-tools, libllama0, libggml0 and the runtime
# libraries from one suite into a private, cached root; nothing is installed into the system. The
# server runs under ROOT's own dynamic loader, so ROOT's libc is used, not the host's:
#
#   ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
#     --library-path ROOT/usr/lib/x86_64-linux-gnu:ROOT/usr/lib/x86_64-linux-gnu/llama \
#     ROOT/usr/bin/llama-server ...
#
# ggml loads its CPU backends as plugins from the executable's directory, which is the loader's when
# run this way, so they are linked beside it. ROOT/run-llama-server does all of this: exec that path.
#
# usage: scripts/llama-root.sh            prints the wrapper's path (ROOT/run-llama-server)
# env:   TAILWATCH_LLAMA_SUITE      Debian suite with llama.cpp (default forky; sid works too)
#        TAILWATCH_CACHE, TAILWATCH_DEBIAN_MIRROR: see debian-root.sh
set -euo pipefail
# shellcheck source=scripts/debian-root.sh
. "$(dirname "$0")/debian-root.sh"

finish_root() {
  local lib=$1/$DEBIAN_ROOT_LIB backends so
  backends=$(ls "$lib"/ggml/backends0/libggml-cpu-*.so 2>/dev/null || true)
  [ -n "$backends" ] || { echo "no ggml CPU backend in libggml0"; return 1; }
  for so in $backends; do ln -s "ggml/backends0/$(basename "$so")" "$lib/"; done
  cat >"$1/run-llama-server" <<'WRAPPER'
#!/bin/sh
# llama-server from this private root, under the root's own dynamic loader and libraries.
R=$(cd "$(dirname "$0")" && pwd)
L=$R/usr/lib/x86_64-linux-gnu
exec "$L/ld-linux-x86-64.so.2" --library-path "$L:$L/llama" "$R/usr/bin/llama-server" "$@"
WRAPPER
  chmod 755 "$1/run-llama-server"
  "$1/run-llama-server" --version
}

debian_root llama "${TAILWATCH_LLAMA_SUITE:-forky}" run-llama-server \
  llama.cpp-tools libllama0 libggml0 libc6 libstdc++6 libgcc-s1 libgomp1 libssl3t64 libzstd1 zlib1g
