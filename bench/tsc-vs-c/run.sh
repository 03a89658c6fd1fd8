#!/usr/bin/env bash
# rtbox's tsc probe against a small C busy-wait loop (busywait.c, written for this
# benchmark): the same sweep, the same CPU, the same policy and priority, runs
# alternated; avg and max jitter side by side and the ratio rtbox/C printed.
#   bench/tsc-vs-c/run.sh [rounds] [cpu] [policy] [priority] [from] [to] [step] [waits]
# Defaults keep each run's RT time under 0.95 s (10..1000 us, 1000 waits = 0.5 s),
# so RT throttling (950000 of 1000000) does not decide the figures; nothing is changed.
set -euo pipefail
rounds=${1:-5}
cpu=${2:-1}
policy=${3:-fifo}
prio=${4:-99}
from=${5:-10}
to=${6:-1000}
step=${7:-10}
waits=${8:-1000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gcc -O2 -Wall -o "$out/busywait" "$here/busywait.c"
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
case $policy in fifo) chrt_opt=-f ;; rr) chrt_opt=-r ;; *) chrt_opt=-o; prio=0 ;; esac
for r in $(seq 1 "$rounds"); do
  taskset -c "$cpu" chrt $chrt_opt "$prio" "$out/busywait" "$from" "$to" "$step" "$waits" > "$out/c-$r.txt"
  RTBOX_JAR=$root/runtime/target/rtbox.jar "$root/runtime/rtbox" run tsc -q --policy "$policy" -p "$prio" -a "$cpu" \
    --warmup 300ms -l "$waits" -o from="$from" -o to="$to" -o step="$step" --report "$out/rt-$r.json" >/dev/null || true
done
python3 - "$out" "$rounds" <<'PY'
import json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
print(f"{'round':>5} {'C avg us':>9} {'rtbox avg us':>12} {'avg diff us':>11} {'C max us':>9} {'rtbox max us':>12} {'max ratio':>9}")
sums = [0.0, 0.0, 0.0, 0.0]
for r in range(1, rounds + 1):
    cmin, cavg, cmax, cn, chz = open(f"{out}/c-{r}.txt").read().split()
    t = json.load(open(f"{out}/rt-{r}.json"))["result"]["threads"][0]["latency"]
    ca, cm, ra, rm = float(cavg) / 1e3, float(cmax) / 1e3, t["avgNs"] / 1e3, t["maxNs"] / 1e3
    sums = [sums[0] + ca, sums[1] + ra, sums[2] + cm, sums[3] + rm]
    print(f"{r:>5} {ca:>9.3f} {ra:>12.3f} {ra - ca:>11.3f} {cm:>9.1f} {rm:>12.1f} {rm / cm if cm else float('nan'):>9.2f}")
n = rounds
ca, ra, cm, rm = (s / n for s in sums)
print(f"{'mean':>5} {ca:>9.3f} {ra:>12.3f} {ra - ca:>11.3f} {cm:>9.1f} {rm:>12.1f} {rm / cm if cm else float('nan'):>9.2f}")
print(f"avg ratio rtbox/C {ra / ca:.2f}, avg difference {ra - ca:+.3f} us (target: within 0.5 us)")
PY
