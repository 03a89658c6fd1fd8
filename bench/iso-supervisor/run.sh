#!/usr/bin/env bash
# The cost of emulated ISO's supervisor (issue 19): CPU time of its thread
# (rtbox-iso-supervisor, from its schedstat) over 15 s of a cell whose graph has 20 ISO
# tasks (the driver and 19 clients, threads or processes) at iso@100 (never demoted, so
# only the sampling is measured), at a 10 ms and a 4 ms tick. Goal: <= 0.5 % of a core
# at 10 ms.
# A policy and a load may be given, e.g. iso@70 60: a class near its limit, where the
# supervisor wakes more often than far from it (as at iso@100).
#   flock /tmp/rtbox-heavy.lock bench/iso-supervisor/run.sh [ends] [policy] [load]
set -euo pipefail
ends=${1:-threads}
policy=${2:-iso@100}
load=${3:-20}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
echo "# $(uname -srm), $(nproc) CPUs; ends=$ends, $policy, graph load $load %; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %-10s %12s %12s\n' tick 'ISO tasks' 'CPU (ms)' 'of a core'
for tick in 10 4; do
  cat > "$out/plan-$tick.json" <<JSON
{"rtbox_plan": 1, "name": "supervisor-$tick", "probe": "graph", "duration": "20s", "warmup": "1s",
 "policy": "$policy", "tuning": {"iso_sample_ms": $tick},
 "parameters": {"interval_us": 10000, "cpus": [1], "options": {"clients": "19", "load": "$load", "ends": "$ends"}}}
JSON
  RTBOX_JAR=$jar "$root/runtime/rtbox" plan run "$out/plan-$tick.json" > "$out/log-$tick" 2>&1 &
  pid=$!
  tid=
  for i in $(seq 1 300); do
    tid=$(grep -l '^rtbox-iso-super' /proc/$pid/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5 || true)
    [ -n "$tid" ] && break
    sleep 0.1
  done
  [ -n "$tid" ] || { echo "no supervisor thread in $pid" >&2; cat "$out/log-$tick" >&2; exit 1; }
  sleep 3
  t0=$(cut -d' ' -f1 /proc/$pid/task/$tid/schedstat); s0=$(date +%s%N)
  sleep 15
  t1=$(cut -d' ' -f1 /proc/$pid/task/$tid/schedstat); s1=$(date +%s%N)
  wait $pid || true
  tasks=$(grep -o 'iso.threads: [0-9]*' "$out/log-$tick" | head -1 | cut -d' ' -f2)
  awk -v t="$tick" -v n="$tasks" -v c=$((t1 - t0)) -v w=$((s1 - s0)) \
    'BEGIN { printf "%-8s %-10s %12.1f %11.3f%%\n", t " ms", n, c / 1e6, 100 * c / w }'
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
