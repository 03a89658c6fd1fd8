#!/usr/bin/env bash
# rtbox's timer probe against cyclictest (Debian's rt-tests): the same parameters,
# the same CPU, runs alternated, and the ratios rtbox/cyclictest of p50, p99 and
# max printed. Percentiles of both come from their 1 us histograms (--json), read
# the same way, so the comparison is like for like.
#
# Four arms per round, their order rotated from round to round (this VM's wake-up floor
# drifts by several us within minutes, so each ratio is taken within one round, between
# runs a few seconds apart, and the median over the rounds is printed):
#   cyclictest            bare, as an engineer runs it
#   cyclictest+trace      with a tracefs instance recording what rtbox.trace records
#                         (the same events, buffer and clock), as with trace-cmd beside it
#   rtbox                 rtbox run timer as shipped (the kernel trace on, as root)
#   rtbox-notrace         the same with rtbox.trace off (etc/rtbox.trace.cfg enabled=false)
# Like for like: rtbox-notrace against cyclictest, rtbox against cyclictest+trace; and
# each side's trace cost, traced against bare.
#   bench/timer-vs-cyclictest/run.sh [rounds] [seconds per run] [cpu] [priority]
# With RTBOX_BASELINE_LAUNCHER=PATH (another launcher script, e.g. main's before a change of
# its JVM flags), two more arms, rtbox(base) and rtbox-notrace(base), run that launcher with
# the same jar, and their ratios are printed beside the others'.
set -euo pipefail
rounds=${1:-8}
seconds=${2:-5}
cpu=${3:-1}
prio=${4:-99}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v cyclictest >/dev/null || { echo "cyclictest missing: apt-get install rt-tests" >&2; exit 2; }
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
for v in on off; do
  mkdir -p "$out/home-$v/etc" && cp "$root"/runtime/etc/* "$out/home-$v/etc/"
done
echo "enabled=false" > "$out/home-off/etc/rtbox.trace.cfg"
tracing=/sys/kernel/tracing
[ -d "$tracing/instances" ] || mount -t tracefs nodev "$tracing"
instance=$tracing/instances/rtbox-bench-$$
cleanup() { [ -d "$instance" ] && { echo 0 > "$instance/tracing_on"; rmdir "$instance"; }; rm -rf "$out"; }
trap cleanup EXIT
# rtbox.trace's events (bundles/trace Session.EVENTS), buffer (2048 KiB per CPU) and clock.
events="sched/sched_switch sched/sched_wakeup irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit"
ct() {
  cyclictest -q -m -p "$prio" -i 1000 -a "$cpu" -t 1 -D "${seconds}s" -h 20000 --json="$1" >/dev/null
}
arm() {
  case $1 in
    ct) ct "$out/ct-$2.json" ;;
    ctt)
      mkdir "$instance"
      echo 2048 > "$instance/buffer_size_kb"; echo mono > "$instance/trace_clock"
      printf '%x\n' $((1 << cpu)) > "$instance/tracing_cpumask"
      for e in $events; do echo 1 > "$instance/events/$e/enable"; done
      echo 1 > "$instance/tracing_on"
      ct "$out/ctt-$2.json"
      echo 0 > "$instance/tracing_on"; rmdir "$instance" ;;
    on|off|bon|boff)
      local launcher=$root/runtime/rtbox v=$1
      case $1 in b*) launcher=$RTBOX_BASELINE_LAUNCHER; v=${1#b} ;; esac
      RTBOX_HOME=$out/home-$v RTBOX_JAR=$root/runtime/target/rtbox.jar "$launcher" run timer -q -m \
        -p "$prio" -i 1000 -a "$cpu" -D "${seconds}s" -h 20000 --json "$out/rt$1-$2.json" >"$out/log-$1-$2" 2>&1 || true ;;
  esac
}
arms=(ct ctt on off)
[ -n "${RTBOX_BASELINE_LAUNCHER:-}" ] && arms+=(bon boff)
n=${#arms[@]}
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((n - 1))); do arm "${arms[$(( (i + r) % n ))]}" "$r"; done
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$rounds" "${RTBOX_BASELINE_LAUNCHER:+base}" <<'PY'
import json, sys, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])
def pct(hist, n, q):
    need, acc = q * n, 0
    for k in sorted(hist, key=int):
        acc += hist[k]
        if acc >= need:
            return int(k)
def figures(path):
    t = json.load(open(path))["thread"]["0"]
    h, n = t["histogram"], t["cycles"]
    return pct(h, n, .5), pct(h, n, .99), t["max"]
names = {"ct": "cyclictest", "ctt": "cyclictest+trace", "rton": "rtbox", "rtoff": "rtbox-notrace"}
base = len(sys.argv) > 3 and sys.argv[3] == "base"
if base:
    names.update({"rtbon": "rtbox(base)", "rtboff": "rtbox-notrace(base)"})
rows = []
for r in range(1, rounds + 1):
    row = {k: figures(f"{out}/{k}-{r}.json") for k in names}
    rows.append(row)
    print(f"round {r}: " + " | ".join(f"{names[k]} {v[0]}/{v[1]}/{v[2]}" for k, v in row.items()))
print("(p50/p99/max in us)")
def ratio(a, b, i):
    return st.median(x[a][i] / x[b][i] for x in rows if x[b][i])
pairs = [("rtoff", "ct"), ("rton", "ctt"), ("rton", "ct"), ("ctt", "ct"), ("rton", "rtoff")]
if base:
    pairs += [("rtboff", "ct"), ("rtbon", "ctt"), ("rton", "rtbon"), ("rtoff", "rtboff")]
for a, b in pairs:
    print(f"{names[a]:>16} / {names[b]:<16} p50 {ratio(a, b, 0):.2f}  p99 {ratio(a, b, 1):.2f}  max {ratio(a, b, 2):.2f}"
          f"  (median of {rounds} rounds)")
PY
