#!/usr/bin/env bash
# What the kernel trace (rtbox.trace) costs the probe it watches: the timer probe with
# the trace on and off (rtbox.trace enabled=false through Config Admin), runs alternated
# in one go, and the ratios on/off of p50 and p99 printed (median over the rounds). Each
# run's notes are checked: an "on" run must say "kernel trace on CPU", an "off" run "the
# kernel trace is off". The reader's CPU time, from the "on" runs' notes, is printed too.
#   bench/trace-overhead/run.sh [rounds] [seconds per run] [cpu] [priority] [interval us]
# Run it under the shared lock: flock /tmp/rtbox-heavy.lock bench/trace-overhead/run.sh
set -euo pipefail
rounds=${1:-5}
seconds=${2:-10}
cpu=${3:-1}
prio=${4:-99}
interval=${5:-1000}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
run() { # $1 on|off, $2 round
  # Written both ways: Config Admin keeps a configuration whose file went while rtbox was not running.
  if [ "$1" = off ]; then echo "enabled=false" > "$RTBOX_HOME/etc/rtbox.trace.cfg"; else echo "enabled=true" > "$RTBOX_HOME/etc/rtbox.trace.cfg"; fi
  RTBOX_JAR=$root/runtime/target/rtbox.jar "$root/runtime/rtbox" run timer -q -m -p "$prio" --policy fifo \
    -i "$interval" -a "$cpu" -D "${seconds}s" -h 20000 --json "$out/$1-$2.json" --report "$out/$1-$2.report.json" \
    >/dev/null || true
}
for r in $(seq 1 "$rounds"); do
  # Alternate which goes first, so that a drift of the machine does not favour one side.
  if [ $((r % 2)) = 1 ]; then run on "$r"; run off "$r"; else run off "$r"; run on "$r"; fi
done
python3 - "$out" "$rounds" <<'PY'
import json, re, sys, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])
def pct(hist, n, q):
    need, acc = q * n, 0
    for k in sorted(hist, key=int):
        acc += hist[k]
        if acc >= need:
            return int(k)
    return None
def figures(side, r):
    t = json.load(open(f"{out}/{side}-{r}.json"))["thread"]["0"]
    notes = json.load(open(f"{out}/{side}-{r}.report.json"))["result"]["notes"]
    h, n = t["histogram"], t["cycles"]
    return pct(h, n, .5), pct(h, n, .99), t["max"], n, notes
rows, reader = [], []
for r in range(1, rounds + 1):
    on, off = figures("on", r), figures("off", r)
    assert any(x.startswith("kernel trace on CPU") for x in on[4]), f"round {r}: the 'on' run had no trace: {on[4]}"
    assert any("the kernel trace is off" in x for x in off[4]), f"round {r}: the 'off' run was traced: {off[4]}"
    note = next(x for x in on[4] if x.startswith("kernel trace on CPU"))
    m = re.search(r"(\d+) events .* the reader used ([\d.]+) ms of CPU in ([\d.]+) s \(([\d.]+) %", note)
    reader.append((int(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4))))
    rows.append((on, off))
    print(f"round {r}: on p50 {on[0]} p99 {on[1]} max {on[2]} us ({on[3]} cycles) | "
          f"off p50 {off[0]} p99 {off[1]} max {off[2]} us ({off[3]} cycles) | "
          f"reader {reader[-1][1]:.0f} ms CPU for {reader[-1][0]} events ({reader[-1][3]:.2f} % of a CPU)")
def ratio(i):
    return st.median(on[i] / off[i] for on, off in rows if off[i])
print(f"ratio on/off (median of {rounds} rounds): p50 {ratio(0):.2f}  p99 {ratio(1):.2f}  max {ratio(2):.2f}; "
      f"reader median {st.median(x[3] for x in reader):.2f} % of one CPU, "
      f"{st.median(x[1] * 1e6 / x[0] for x in reader):.0f} ns of CPU per event")
PY
rm -rf "$out"
