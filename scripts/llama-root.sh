#!/usr/bin/env bash
# A private root holding llama.cpp's llama-server from Debian's packages, for the real-engine tests.
#
# Nothing is installed into the system: a private apt configuration (its own sources list, state and
# cache directories, signed by the Debian archive keyring) downloads the .debs of llama.cpp-tools,
# libllama0, libggml0 and the runtime libraries from the same suite, and `dpkg -x` unpacks each into
# ROOT. The server runs under ROOT's own dynamic loader, so ROOT's libc is used, not the host's:
#
#   ROOT/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
#     --library-path ROOT/usr/lib/x86_64-linux-gnu:ROOT/usr/lib/x86_64-linux-gnu/llama \
#     ROOT/usr/bin/llama-server ...
#
# ggml loads its CPU backends as plugins from the executable's directory, which is the loader's when
# run this way, so they are linked beside it. ROOT/run-llama-server does all of this: exec that path.
#
# The root is cached under CACHE/llama-root/<key>, the key made of the packages' versions, and built
# into a temporary directory that is renamed into place, so a half-built root is never used. The
# suite's package lists are fetched again when older than a day; without a network the newest root
# already built is used. Concurrent runs wait for each other (flock).
#
# usage: scripts/llama-root.sh            prints the wrapper's path (ROOT/run-llama-server)
# env:   TAILWATCH_CACHE            cache directory (default ${XDG_CACHE_HOME:-~/.cache}/tailwatch)
#        TAILWATCH_LLAMA_SUITE      Debian suite with llama.cpp (default forky; sid works too)
#        TAILWATCH_DEBIAN_MIRROR    archive URI (default: the first Debian archive in the host's apt
#                                   sources)
set -euo pipefail

[ "$(uname -m)" = x86_64 ] || { echo "llama-root.sh: only x86_64 (amd64) is supported" >&2; exit 1; }
command -v apt-get >/dev/null && command -v dpkg >/dev/null \
  || { echo "llama-root.sh: needs apt-get and dpkg (a Debian or Ubuntu host)" >&2; exit 1; }
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || { echo "llama-root.sh: $KEYRING missing (apt-get install debian-archive-keyring)" >&2; exit 1; }

CACHE=${TAILWATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tailwatch}
SUITE=${TAILWATCH_LLAMA_SUITE:-forky}
BASE=$CACHE/llama-root
APT=$BASE/apt-$SUITE
PACKAGES=(llama.cpp-tools libllama0 libggml0 libc6 libstdc++6 libgcc-s1 libgomp1 libssl3t64 libzstd1 zlib1g)
LIB=usr/lib/x86_64-linux-gnu

mirror() {
  if [ -n "${TAILWATCH_DEBIAN_MIRROR:-}" ]; then echo "$TAILWATCH_DEBIAN_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' \
        | grep -E '/debian/?$' | head -n 1 || true)
  [ -n "$uri" ] || uri=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | sed -E 's/^deb (\[[^]]*\] )?//' | awk '{print $1}' | grep -E '/debian/?$' | head -n 1 || true)
  [ -n "$uri" ] || { echo "llama-root.sh: no Debian archive in the host's apt sources; set TAILWATCH_DEBIAN_MIRROR" >&2; exit 1; }
  echo "${uri%/}"
}

aptopts() {
  printf '%s\n' -o "Dir::Etc=$APT/etc" -o "Dir::Etc::SourceList=$APT/etc/sources.list" \
    -o "Dir::Etc::SourceParts=$APT/etc/sources.list.d" -o "Dir::Etc::Preferences=$APT/etc/preferences" \
    -o "Dir::Etc::PreferencesParts=$APT/etc/preferences.d" -o "Dir::Etc::Parts=$APT/etc/apt.conf.d" \
    -o "Dir::State=$APT/state" -o "Dir::State::status=$APT/state/status" -o "Dir::Cache=$APT/cache" \
    -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Acquire::Languages=none" \
    -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
}

mkdir -p "$BASE"
exec 9>"$BASE/.lock"
flock 9

mkdir -p "$APT"/etc/sources.list.d "$APT"/etc/preferences.d "$APT"/etc/apt.conf.d \
  "$APT"/state/lists/partial "$APT"/cache/archives/partial
touch "$APT/state/status"
mapfile -t OPTS < <(aptopts)

newest_root() { ls -1dt "$BASE"/root-*/ 2>/dev/null | head -n 1 | sed 's#/$##'; }

lists_fresh() {
  local stamp=$APT/state/updated
  [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ]
}

# Fast path: lists fetched within a day and the root they resolved to is built.
if lists_fresh && [ -f "$BASE/current-$SUITE" ] && [ -x "$(cat "$BASE/current-$SUITE")/run-llama-server" ]; then
  echo "$(cat "$BASE/current-$SUITE")/run-llama-server"
  exit 0
fi

if ! lists_fresh; then
  echo "deb [signed-by=$KEYRING] $(mirror) $SUITE main" >"$APT/etc/sources.list"
  if apt-get "${OPTS[@]}" -qq update >"$APT/update.log" 2>&1; then
    touch "$APT/state/updated"
  elif [ -n "$(newest_root)" ]; then
    echo "llama-root.sh: apt-get update failed (see $APT/update.log); using the root already built" >&2
    echo "$(newest_root)/run-llama-server"
    exit 0
  else
    cat "$APT/update.log" >&2
    echo "llama-root.sh: apt-get update of $SUITE failed and no root is cached" >&2
    exit 1
  fi
fi

policy=$(apt-cache "${OPTS[@]}" policy "${PACKAGES[@]}")
versions=$(for p in "${PACKAGES[@]}"; do
  v=$(awk -v p="$p:" '$0 == p {found = 1; next} found && /Candidate:/ {print $2; exit}' <<<"$policy")
  if [ -z "$v" ] || [ "$v" = "(none)" ]; then
    echo "llama-root.sh: package $p is not in Debian $SUITE" >&2; exit 1
  fi
  echo "$p=$v"
done)
key=$(printf '%s\n' "$SUITE" "$versions" | sha256sum | cut -c1-16)
ROOT=$BASE/root-$key

if [ ! -x "$ROOT/run-llama-server" ]; then
  tmp=$(mktemp -d "$BASE/.build-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/debs" "$tmp/root"
  # shellcheck disable=SC2046
  (cd "$tmp/debs" && apt-get "${OPTS[@]}" -qq download $(printf '%s\n' "$versions") >"$tmp/download.log" 2>&1) \
    || { cat "$tmp/download.log" >&2; echo "llama-root.sh: download failed" >&2; exit 1; }
  for deb in "$tmp"/debs/*.deb; do dpkg -x "$deb" "$tmp/root"; done
  backends=$(ls "$tmp/root/$LIB"/ggml/backends0/libggml-cpu-*.so 2>/dev/null || true)
  [ -n "$backends" ] || { echo "llama-root.sh: no ggml CPU backend in libggml0" >&2; exit 1; }
  for so in $backends; do ln -s "ggml/backends0/$(basename "$so")" "$tmp/root/$LIB/"; done
  cat >"$tmp/root/run-llama-server" <<'EOF'
#!/bin/sh
# llama-server from this private root, under the root's own dynamic loader and libraries.
R=$(cd "$(dirname "$0")" && pwd)
L=$R/usr/lib/x86_64-linux-gnu
exec "$L/ld-linux-x86-64.so.2" --library-path "$L:$L/llama" "$R/usr/bin/llama-server" "$@"
EOF
  chmod 755 "$tmp/root/run-llama-server"
  printf '%s\n' "$versions" >"$tmp/root/VERSIONS"
  "$tmp/root/run-llama-server" --version >"$tmp/version.log" 2>&1 \
    || { cat "$tmp/version.log" >&2; echo "llama-root.sh: the unpacked llama-server does not run" >&2; exit 1; }
  rm -rf "$ROOT"
  mv "$tmp/root" "$ROOT"
  rm -rf "$tmp"
  trap - EXIT
  # Older roots are dropped; the one just built stays.
  for old in "$BASE"/root-*; do [ "$old" = "$ROOT" ] || rm -rf "$old"; done
fi
echo "$ROOT" >"$BASE/current-$SUITE"
echo "$ROOT/run-llama-server"
