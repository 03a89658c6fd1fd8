#!/usr/bin/env bash
# What -v (every sample printed, cyclictest's) costs the timer probe: runs with and without
# -v alternated in one go, same options, thread 0's p50/p99/max from --report and, for -v,
# whether every sample was printed (lines on stdout = samples + the 3 other lines).
#   bench/verbose/run.sh [rounds] [seconds per run] [cpu] [priority] [interval us]
# Run it under the shared lock: flock /tmp/rtbox-heavy.lock bench/verbose/run.sh
set -euo pipefail
rounds=${1:-3}
seconds=${2:-10}
cpu=${3:-1}
prio=${4:-80}
interval=${5:-200}
root=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
for r in $(seq 1 "$rounds"); do
  for mode in off on; do
    v=(); [ "$mode" = on ] && v=(-v)
    RTBOX_JAR=$root/runtime/target/rtbox.jar "$root/runtime/rtbox" run timer -D "${seconds}s" -a "$cpu" -p "$prio" \
      -i "$interval" -m -q "${v[@]}" --report "$out/$mode-$r.json" > "$out/$mode-$r.out" 2>&1 || true
    python3 - "$out/$mode-$r.json" "$out/$mode-$r.out" "$mode" "$r" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r['result']['threads'][0]['latency']
lines = sum(1 for _ in open(sys.argv[2]))
print(f"{sys.argv[3]:3} round {sys.argv[4]}: p50 {t['p50Ns']//1000} us, p99 {t['p99Ns']//1000} us, "
      f"max {t['maxNs']//1000} us, {t['samples']} samples, {lines} lines on stdout")
PY
  done
done
