#!/usr/bin/env bash
# A private root holding Prometheus 3 from Debian's packages, for the tests of the OTLP push path
# (Prometheus' own OTLP receiver, `--web.enable-otlp-receiver`, arrived in 3.0; bookworm has 2.42).
#
# debian-root.sh (beside this script) downloads the prometheus and promtool packages and libc6 from one
# suite into a private, cached root; nothing is installed into the system. ROOT/run-prometheus and
# ROOT/run-promtool run the binaries under ROOT's own dynamic loader and libc, so the host's libc version
# does not matter.
#
# Debian builds Prometheus without its OTLP receiver (`--web.enable-otlp-receiver` is patched out until the
# OpenTelemetry Collector's Go packages are in Debian): the tests use this Prometheus 3's TSDB, PromQL,
# rule evaluation, remote-write receiver and config parser (the `otlp:` block), not its OTLP endpoint.
#
# usage: scripts/prometheus-root.sh       prints the wrapper's path (ROOT/run-prometheus; run-promtool beside it)
# env:   TAILWATCH_PROMETHEUS_SUITE Debian suite with Prometheus 3 (default forky; sid works too)
#        TAILWATCH_CACHE, TAILWATCH_DEBIAN_MIRROR: see debian-root.sh
set -euo pipefail
# shellcheck source=scripts/debian-root.sh
. "$(dirname "$0")/debian-root.sh"

finish_root() {
  local tool
  for tool in prometheus promtool; do
    cat >"$1/run-$tool" <<WRAPPER
#!/bin/sh
# $tool from this private root, under the root's own dynamic loader and libc.
R=\$(cd "\$(dirname "\$0")" && pwd)
L=\$R/usr/lib/x86_64-linux-gnu
exec "\$L/ld-linux-x86-64.so.2" --library-path "\$L" "\$R/usr/bin/$tool" "\$@"
WRAPPER
    chmod 755 "$1/run-$tool"
    "$1/run-$tool" --version
  done
}

debian_root prometheus "${TAILWATCH_PROMETHEUS_SUITE:-forky}" run-prometheus prometheus promtool libc6
