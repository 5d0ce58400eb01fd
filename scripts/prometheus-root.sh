#!/usr/bin/env bash
# A private root holding Prometheus 3 from Debian's packages, for the tests of the OTLP push path
# (Prometheus' own OTLP receiver, `--web.enable-otlp-receiver`, arrived in 3.0; bookworm has 2.42).
#
# debian-root.sh (beside this script) downloads the prometheus package and libc6 from one suite into a
# private, cached root; nothing is installed into the system. ROOT/run-prometheus runs the binary
# under ROOT's own dynamic loader and libc, so the host's libc version does not matter.
#
# usage: scripts/prometheus-root.sh       prints the wrapper's path (ROOT/run-prometheus)
# env:   TAILWATCH_PROMETHEUS_SUITE Debian suite with Prometheus 3 (default forky; sid works too)
#        TAILWATCH_CACHE, TAILWATCH_DEBIAN_MIRROR: see debian-root.sh
set -euo pipefail
# shellcheck source=scripts/debian-root.sh
. "$(dirname "$0")/debian-root.sh"

finish_root() {
  cat >"$1/run-prometheus" <<'WRAPPER'
#!/bin/sh
# Prometheus from this private root, under the root's own dynamic loader and libc.
R=$(cd "$(dirname "$0")" && pwd)
L=$R/usr/lib/x86_64-linux-gnu
exec "$L/ld-linux-x86-64.so.2" --library-path "$L" "$R/usr/bin/prometheus" "$@"
WRAPPER
  chmod 755 "$1/run-prometheus"
  "$1/run-prometheus" --version
}

debian_root prometheus "${TAILWATCH_PROMETHEUS_SUITE:-forky}" run-prometheus prometheus libc6
