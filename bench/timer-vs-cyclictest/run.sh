#!/usr/bin/env bash
# rtbox's timer probe against cyclictest (Debian's rt-tests): the same parameters,
# the same CPU, runs alternated, and the ratios rtbox/cyclictest of p50, p99 and
# max printed. Percentiles of both come from their 1 us histograms (--json), read
# the same way, so the comparison is like for like.
#   bench/timer-vs-cyclictest/run.sh [rounds] [seconds per run] [cpu] [priority]
set -euo pipefail
rounds=${1:-3}
seconds=${2:-10}
cpu=${3:-1}
prio=${4:-99}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v cyclictest >/dev/null || { echo "cyclictest missing: apt-get install rt-tests" >&2; exit 2; }
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
for r in $(seq 1 "$rounds"); do
  cyclictest -q -m -p "$prio" -i 1000 -a "$cpu" -t 1 -D "${seconds}s" -h 20000 --json="$out/ct-$r.json" >/dev/null
  RTBOX_JAR=$root/runtime/target/rtbox.jar "$root/runtime/rtbox" run timer -q -m -p "$prio" -i 1000 -a "$cpu" \
    -D "${seconds}s" -h 20000 --json "$out/rt-$r.json" >/dev/null || true
done
python3 - "$out" "$rounds" <<'PY'
import json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def pct(hist, n, q):
    need, acc = q * n, 0
    for k in sorted(hist, key=int):
        acc += hist[k]
        if acc >= need:
            return int(k)
    return None
def figures(path):
    t = json.load(open(path))["thread"]["0"]
    h, n = t["histogram"], t["cycles"]
    return pct(h, n, .5), pct(h, n, .99), t["max"], n
rows = []
for r in range(1, rounds + 1):
    c, x = figures(f"{out}/ct-{r}.json"), figures(f"{out}/rt-{r}.json")
    rows.append((c, x))
    print(f"round {r}: cyclictest p50 {c[0]} p99 {c[1]} max {c[2]} us ({c[3]} cycles) | "
          f"rtbox p50 {x[0]} p99 {x[1]} max {x[2]} us ({x[3]} cycles)")
import statistics as st
def ratio(i):
    return st.median(x[i] / c[i] for c, x in rows if c[i])
print(f"ratio rtbox/cyclictest (median of {rounds} rounds): p50 {ratio(0):.2f}  p99 {ratio(1):.2f}  max {ratio(2):.2f}")
PY
rm -rf "$out"
