# shellcheck shell=bash
# Builds a private root of Debian packages, for tools the tests drive that the host's Debian lacks or
# has too old. Sourced by llama-root.sh and prometheus-root.sh; each defines what goes in its root.
#
# Nothing is installed into the system: a private apt configuration (its own sources list, state and
# cache directories, signed by the Debian archive keyring) downloads the .debs of the given packages
# from one suite, and `dpkg -x` unpacks each into ROOT. Only the packages listed are fetched, not their
# dependencies: the caller lists every one its program needs.
#
# The root is cached under CACHE/<name>-root/<key>, the key made of the suite and the packages'
# versions, and built into a temporary directory that is renamed into place, so a half-built root is
# never used. The suite's package lists are fetched again when older than a day; without a network the
# newest root already built is used. Concurrent runs wait for each other (flock).
#
# usage (from a script with `set -euo pipefail`):
#   . "$(dirname "$0")/debian-root.sh"
#   finish_root() { ...; }   # makes "$1/ENTRY" (a wrapper) and checks it runs; non-zero fails the build
#   debian_root NAME SUITE ENTRY PACKAGE...    # prints ROOT/ENTRY
# env:   TAILWATCH_CACHE            cache directory (default ${XDG_CACHE_HOME:-~/.cache}/tailwatch)
#        TAILWATCH_DEBIAN_MIRROR    archive URI (default: the first Debian archive in the host's apt
#                                   sources)

# Where a wrapper finds the root's libraries and dynamic loader.
DEBIAN_ROOT_LIB=usr/lib/x86_64-linux-gnu

debian_root() {
  local name=$1 suite=$2 entry=$3
  shift 3
  local packages=("$@")
  local me="$name-root.sh"
  [ "$(uname -m)" = x86_64 ] || { echo "$me: only x86_64 (amd64) is supported" >&2; return 1; }
  command -v apt-get >/dev/null && command -v dpkg >/dev/null \
    || { echo "$me: needs apt-get and dpkg (a Debian or Ubuntu host)" >&2; return 1; }
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -r "$keyring" ] || { echo "$me: $keyring missing (apt-get install debian-archive-keyring)" >&2; return 1; }

  local cache=${TAILWATCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tailwatch}
  local base=$cache/$name-root
  local apt=$base/apt-$suite
  mkdir -p "$base"
  exec 9>"$base/.lock"
  flock 9

  mkdir -p "$apt"/etc/sources.list.d "$apt"/etc/preferences.d "$apt"/etc/apt.conf.d \
    "$apt"/state/lists/partial "$apt"/cache/archives/partial
  touch "$apt/state/status"
  local opts=(-o "Dir::Etc=$apt/etc" -o "Dir::Etc::SourceList=$apt/etc/sources.list"
    -o "Dir::Etc::SourceParts=$apt/etc/sources.list.d" -o "Dir::Etc::Preferences=$apt/etc/preferences"
    -o "Dir::Etc::PreferencesParts=$apt/etc/preferences.d" -o "Dir::Etc::Parts=$apt/etc/apt.conf.d"
    -o "Dir::State=$apt/state" -o "Dir::State::status=$apt/state/status" -o "Dir::Cache=$apt/cache"
    -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Acquire::Languages=none"
    -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")

  local stamp=$apt/state/updated fresh=
  [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440 2>/dev/null)" ] && fresh=1
  # Fast path: lists fetched within a day and the root they resolved to is built, of the same packages.
  local current=
  [ -f "$base/current-$suite" ] && current=$(cat "$base/current-$suite")
  if [ -n "$fresh" ] && [ -n "$current" ] && [ -x "$current/$entry" ] \
     && [ "$(cut -d= -f1 "$current/VERSIONS" 2>/dev/null)" = "$(printf '%s\n' "${packages[@]}")" ]; then
    echo "$current/$entry"
    return 0
  fi
  if [ -z "$fresh" ]; then
    local mirror
    mirror=$(debian_mirror "$me") || return 1
    echo "deb [signed-by=$keyring] $mirror $suite main" >"$apt/etc/sources.list"
    if apt-get "${opts[@]}" -qq update >"$apt/update.log" 2>&1; then
      touch "$stamp"
    else
      local newest
      newest=$(ls -1dt "$base"/root-*/ 2>/dev/null | head -n 1 | sed 's#/$##')
      if [ -n "$newest" ] && [ -x "$newest/$entry" ]; then
        echo "$me: apt-get update failed (see $apt/update.log); using the root already built" >&2
        echo "$newest/$entry"
        return 0
      fi
      cat "$apt/update.log" >&2
      echo "$me: apt-get update of $suite failed and no root is cached" >&2
      return 1
    fi
  fi

  local policy versions key root p v
  policy=$(apt-cache "${opts[@]}" policy "${packages[@]}")
  versions=$(for p in "${packages[@]}"; do
    v=$(awk -v p="$p:" '$0 == p {found = 1; next} found && /Candidate:/ {print $2; exit}' <<<"$policy")
    if [ -z "$v" ] || [ "$v" = "(none)" ]; then
      echo "$me: package $p is not in Debian $suite" >&2; exit 1
    fi
    echo "$p=$v"
  done) || return 1
  key=$(printf '%s\n' "$suite" "$versions" | sha256sum | cut -c1-16)
  root=$base/root-$key

  if [ ! -x "$root/$entry" ]; then
    local tmp
    tmp=$(mktemp -d "$base/.build-XXXXXX")
    mkdir -p "$tmp/debs" "$tmp/root"
    # shellcheck disable=SC2046
    if ! (cd "$tmp/debs" && apt-get "${opts[@]}" -qq download $(printf '%s\n' "$versions") >"$tmp/download.log" 2>&1); then
      cat "$tmp/download.log" >&2; rm -rf "$tmp"; echo "$me: download failed" >&2; return 1
    fi
    local deb
    for deb in "$tmp"/debs/*.deb; do dpkg -x "$deb" "$tmp/root"; done
    if ! finish_root "$tmp/root" >"$tmp/finish.log" 2>&1 || [ ! -x "$tmp/root/$entry" ]; then
      cat "$tmp/finish.log" >&2; rm -rf "$tmp"; echo "$me: the unpacked $entry does not run" >&2; return 1
    fi
    printf '%s\n' "$versions" >"$tmp/root/VERSIONS"
    rm -rf "$root"
    mv "$tmp/root" "$root"
    rm -rf "$tmp"
    # Older roots are dropped; the one just built stays.
    local old
    for old in "$base"/root-*; do [ "$old" = "$root" ] || rm -rf "$old"; done
  fi
  echo "$root" >"$base/current-$suite"
  echo "$root/$entry"
}

# The archive URI: TAILWATCH_DEBIAN_MIRROR, else the first Debian archive in the host's apt sources.
debian_mirror() {
  if [ -n "${TAILWATCH_DEBIAN_MIRROR:-}" ]; then echo "$TAILWATCH_DEBIAN_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {for (i = 2; i <= NF; i++) print $i}' \
        | grep -E '/debian/?$' | head -n 1 || true)
  [ -n "$uri" ] || uri=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | sed -E 's/^deb (\[[^]]*\] )?//' | awk '{print $1}' | grep -E '/debian/?$' | head -n 1 || true)
  [ -n "$uri" ] || { echo "$1: no Debian archive in the host's apt sources; set TAILWATCH_DEBIAN_MIRROR" >&2; return 1; }
  echo "${uri%/}"
}
