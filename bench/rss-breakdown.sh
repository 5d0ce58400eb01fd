#!/usr/bin/env bash
# Where a running JVM's resident memory is, from /proc/PID/smaps: resident KiB per mapped file (libjvm.so,
# the JDK's class-data archive classes.jsa, the modules image, libc, ...) and for anonymous memory (Java
# heap, metaspace, code cache, thread stacks and malloc, which Native Memory Tracking splits further),
# each split into clean shared pages (file pages other processes can map too; the kernel may drop them)
# and private dirty ones. With NMT on (-XX:NativeMemoryTracking=summary) it also prints the JVM's own
# summary (jcmd PID VM.native_memory summary), so the two can be set side by side.
# Usage: bench/rss-breakdown.sh PID   (Linux only)
set -euo pipefail
pid=${1:?usage: bench/rss-breakdown.sh PID}
[ -r "/proc/$pid/smaps" ] || { echo "no /proc/$pid/smaps (Linux only, and the process must be yours)" >&2; exit 1; }
awk '
  /^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6) ? $6 : "[anon]"; sub(/.*\//, "", name); next }
  $1 == "Rss:" { rss[name] += $2 }
  $1 == "Shared_Clean:" || $1 == "Private_Clean:" { clean[name] += $2 }
  $1 == "Private_Dirty:" || $1 == "Shared_Dirty:" { dirty[name] += $2 }
  END {
    printf "%-28s %9s %9s %9s\n", "mapping", "RSS MiB", "clean", "dirty"
    for (n in rss) if (rss[n] >= 256) printf "%-28s %9.1f %9.1f %9.1f\n", n, rss[n] / 1024, clean[n] / 1024, dirty[n] / 1024
    for (n in rss) { t += rss[n]; c += clean[n]; d += dirty[n]; if (rss[n] < 256) small += rss[n] }
    printf "%-28s %9.1f\n", "(smaller mappings)", small / 1024
    printf "%-28s %9.1f %9.1f %9.1f\n", "total", t / 1024, c / 1024, d / 1024
  }' "/proc/$pid/smaps" | { read -r header; echo "$header"; sort -k2 -rn >"/tmp/rss.$$"; grep -v '^total' "/tmp/rss.$$"; grep '^total' "/tmp/rss.$$"; rm -f "/tmp/rss.$$"; }
grep -E '^(Rss|Pss|Private_Dirty):' "/proc/$pid/smaps_rollup" 2>/dev/null | awk '{printf "%s %.1f MiB\n", $1, $2 / 1024}'
if jcmd "$pid" VM.native_memory summary >/tmp/nmt.$$ 2>&1 && grep -q 'committed=' /tmp/nmt.$$; then
  echo "NMT (committed):"
  grep -E '^(Total|-)' /tmp/nmt.$$ | sed -E 's/reserved=[0-9]+KB, //; s/\(|\)//g' |
    awk '{for (i = 1; i <= NF; i++) if ($i ~ /^committed=/) {v = $i; sub(/committed=/, "", v); sub(/KB/, "", v)} $NF = ""; sub(/^- +/, ""); printf "  %-30s %7.1f MiB\n", $0, v / 1024}'
fi
rm -f /tmp/nmt.$$
