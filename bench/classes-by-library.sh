#!/usr/bin/env bash
# Classes a JVM loaded, by library: how many, their class-file bytes, and the metaspace they are
# estimated to hold. Reads a class-load log (-Xlog:class+load=info:file=LOG, as bench/memory-flat.sh
# writes it). Classes from the JDK's shared archive (CDS) keep their metadata in the archive's mapping,
# not in metaspace: they are counted apart. The committed metaspace (non-class plus class space, MiB, from
# NMT or `jcmd PID VM.metaspace`) is shared out over the other classes in proportion to their class-file
# bytes; generated classes (lambdas, method handles, reflection accessors) have no class file and count
# as 2 KiB each (a small class plus the loader data each hidden class gets). That is an estimate: metadata
# size follows the class file's size roughly, not exactly.
# Usage: bench/classes-by-library.sh CLASS_LOG [JAR (agent/target/tailwatch.jar)] [METASPACE_MIB]
set -euo pipefail
log=${1:?usage: bench/classes-by-library.sh CLASS_LOG [JAR] [METASPACE_MIB]}
jar=${2:-agent/target/tailwatch.jar}
meta=${3:-0}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
sizes=$(mktemp)
trap 'rm -f "$sizes"' EXIT
# class-file sizes: NAME.class SIZE, from the jar and from the JDK's modules image
unzip -l "$jar" | awk '$4 ~ /\.class$/ {print $4, $1}' >"$sizes"
jimage list --verbose "$java_home/lib/modules" | awk '$4 ~ /\.class$/ {print $4, $2}' >>"$sizes"
awk -v meta="$meta" '
  FNR == NR { size[$1] = $2; next }
  /source: / {
    n = $0; sub(/^.*\] /, "", n); sub(/ source:.*$/, "", n)
    if ($0 ~ /source: shared objects file/) { lib = "JDK, from the shared archive (CDS)"; shared[lib] = 1 }
    else if ($0 ~ /source: jrt:/) lib = "JDK, from its modules"
    else if ($0 ~ /source: (__JVM_|instance of|__Lookup_defineClass__|__dynamic_proxy__)/ || n ~ /\$\$Lambda\$|LambdaForm\$|^jdk\.internal\.reflect\.Generated|^jdk\.proxy/) lib = "generated (lambdas, method handles, reflection)"
    else if (n ~ /^com\.fasterxml\.jackson/) lib = "Jackson"
    else if (n ~ /^org\.eclipse\.jetty|^jakarta\.servlet/) lib = "Jetty + servlet API"
    else if (n ~ /^io\.javalin/) lib = "Javalin"
    else if (n ~ /^kotlin/) lib = "Kotlin runtime"
    else if (n ~ /^io\.micrometer/) lib = "Micrometer"
    else if (n ~ /^io\.prometheus/) lib = "Prometheus client"
    else if (n ~ /^picocli/) lib = "picocli"
    else if (n ~ /^org\.yaml\.snakeyaml/) lib = "SnakeYAML"
    else if (n ~ /^io\.opentelemetry/) lib = "OpenTelemetry"
    else if (n ~ /^org\.slf4j/) lib = "SLF4J"
    else if (n ~ /^io\.tailwatch/) lib = "tailwatch"
    else { split(n, p, "."); lib = p[1] "." p[2] }
    count[lib]++
    f = n; gsub(/\./, "/", f); f = f ".class"
    if (f in size) { bytes[lib] += size[f]; known += size[f]; knownn++ }
    else if (!(lib in shared)) unknown[lib]++
    if (!(lib in shared)) { own += 1 }
  }
  END {
    for (l in unknown) { bytes[l] += unknown[l] * 2048 }
    for (l in count) if (!(l in shared)) total += bytes[l]
    printf "%-48s %7s %10s %14s\n", "library", "classes", "class KiB", "metaspace MiB"
    for (l in count) {
      m = (l in shared || total == 0 || meta == 0) ? "-" : sprintf("%.1f", meta * bytes[l] / total)
      printf "%d\t%-48s %7d %10s %14s\n", count[l], l, count[l], (l in shared) ? "-" : sprintf("%.0f", bytes[l] / 1024), m | "sort -rn | cut -f2-"
    }
  }' "$sizes" "$log"
